#include "workloads/frontends/expr.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <vector>

#include "sim/core/text.h"

namespace systole::workloads {

namespace {

// Nesting deeper than this (parentheses or unary minus signs) is an error, not a stack
// overflow; real workload expressions nest a few levels.
constexpr int kMaxNesting = 100;

class Parser {
 public:
  Parser(const std::string& t, const Params& p, const Origin& o, const std::string& path)
      : t_(t), params_(p), origin_(o), path_(path) {}

  std::int64_t parse() {
    const std::int64_t v = sum();
    skip();
    if (pos_ != t_.size()) fail(fmt::format("unexpected '{}' in '{}'", t_.substr(pos_, 1), t_));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw ConfigError(origin_, path_, why); }
  // Counts the nesting of unary() calls (each '(' and each unary '-' recurses once).
  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNesting)
        p_.fail(fmt::format("'{}' nests more than {} levels of parentheses or signs",
                            p_.t_.size() > 40 ? p_.t_.substr(0, 40) + "..." : p_.t_, kMaxNesting));
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Parser& p_;
  };
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // Applies a checked builtin (add/sub/mul with overflow flag) to a and b.
  template <class Op>
  std::int64_t checked(Op op, std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    if (op(a, b, &r)) fail(fmt::format("'{}' overflows a 64-bit integer", t_));
    return r;
  }
  static bool add(std::int64_t a, std::int64_t b, std::int64_t* r) {
    return __builtin_add_overflow(a, b, r);
  }
  static bool sub(std::int64_t a, std::int64_t b, std::int64_t* r) {
    return __builtin_sub_overflow(a, b, r);
  }
  static bool mul(std::int64_t a, std::int64_t b, std::int64_t* r) {
    return __builtin_mul_overflow(a, b, r);
  }
  std::int64_t sum() {
    std::int64_t v = product();
    for (;;) {
      if (eat('+'))
        v = checked(add, v, product());
      else if (eat('-'))
        v = checked(sub, v, product());
      else
        return v;
    }
  }
  std::int64_t product() {
    std::int64_t v = unary();
    for (;;) {
      if (eat('*')) {
        v = checked(mul, v, unary());
      } else if (eat('/')) {
        v = quotient(v, divisor(), '/');
      } else if (eat('%')) {
        v = quotient(v, divisor(), '%');
      } else {
        return v;
      }
    }
  }
  std::int64_t divisor() {
    const std::int64_t d = unary();
    if (d == 0) fail(fmt::format("division by zero in '{}'", t_));
    return d;
  }
  // a / b or a % b; INT64_MIN / -1 is the one quotient that does not fit in 64 bits (and
  // INT64_MIN % -1 traps on x86 although its value, 0, fits).
  std::int64_t quotient(std::int64_t a, std::int64_t b, char op) const {
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
      if (op == '%') return 0;
      fail(fmt::format("'{}' overflows a 64-bit integer", t_));
    }
    return op == '/' ? a / b : a % b;
  }
  std::int64_t unary() {
    const DepthGuard guard(*this);
    if (eat('-')) return checked(sub, 0, unary());
    if (eat('(')) {
      const std::int64_t v = sum();
      if (!eat(')')) fail(fmt::format("missing ')' in '{}'", t_));
      return v;
    }
    skip();
    if (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) {
      std::int64_t v = 0;
      while (pos_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[pos_]))) {
        std::int64_t r = 0;
        if (__builtin_mul_overflow(v, 10, &r) || __builtin_add_overflow(r, t_[pos_] - '0', &v))
          fail(fmt::format("'{}' overflows a 64-bit integer", t_));
        ++pos_;
      }
      return v;
    }
    if (pos_ < t_.size() &&
        (std::isalpha(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_')) {
      const size_t b = pos_;
      while (pos_ < t_.size() &&
             (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_'))
        ++pos_;
      const std::string name = t_.substr(b, pos_ - b);
      const auto it = params_.find(name);
      if (it == params_.end()) {
        std::vector<std::string> names;
        for (const auto& [k, v] : params_) names.push_back(k);
        fail(fmt::format(
            "unknown parameter '{}' in '{}'{}{}", name, t_, did_you_mean(name, names),
            names.empty() ? "; the workload declares no params" : "; params: " + join(names)));
      }
      return it->second;
    }
    fail(fmt::format("expected a number or a parameter name in '{}'", t_));
  }

  const std::string& t_;
  const Params& params_;
  const Origin& origin_;
  const std::string& path_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool is_int_literal(const std::string& text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  if (i >= text.size()) return false;
  for (; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

std::int64_t eval_int_expr(const std::string& text, const Params& params, const Origin& origin,
                           const std::string& path) {
  return Parser(text, params, origin, path).parse();
}

}  // namespace systole::workloads
