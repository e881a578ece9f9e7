#include "sim/app/interrupt_note.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace systole::app {

namespace {

// Formatted before any signal can arrive: a handler may only write(2) and re-raise.
char g_message[4096];
size_t g_length = 0;
pid_t g_parent = 0;  // forked workers inherit the handler; only simrun itself speaks
struct sigaction g_old_int {
}, g_old_term{};

extern "C" void on_stop_signal(int sig) {
  if (g_length > 0 && ::getpid() == g_parent) {
    const ssize_t n = ::write(STDERR_FILENO, g_message, g_length);
    (void)n;
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

InterruptNote::InterruptNote(const std::string& out) {
  const std::string text = fmt::format(
      "\nsimrun: interrupted; the points finished so far are kept in {}.partial: run the same "
      "command with --resume to continue\n",
      out);
  g_length = std::min(text.size(), sizeof g_message);
  g_parent = ::getpid();
  std::memcpy(g_message, text.data(), g_length);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptNote::~InterruptNote() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  g_length = 0;
}

}  // namespace systole::app
