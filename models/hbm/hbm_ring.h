#pragma once
// A FIFO in a power-of-two ring that grows when full: the controllers' completion pipelines and
// the ingress queues push and pop once per request, where std::deque's block handling showed
// in profiles.

#include <cstddef>
#include <vector>

namespace systole::models {

template <class T>
/// FIFO on a growing power-of-two ring.
class HbmRing {
 public:
  bool empty() const { return head_ == tail_; }
  std::size_t size() const { return tail_ - head_; }
  const T& front() const { return buf_[head_ & mask_]; }
  const T& back() const { return buf_[(tail_ - 1) & mask_]; }
  void pop_front() { ++head_; }
  void push_back(const T& v) {
    if (size() == buf_.size()) grow();
    buf_[tail_++ & mask_] = v;
  }

 private:
  void grow() {
    std::vector<T> b(buf_.empty() ? 16 : 2 * buf_.size());
    for (std::size_t i = 0; i < size(); ++i) b[i] = buf_[(head_ + i) & mask_];
    tail_ = size();
    head_ = 0;
    buf_.swap(b);
    mask_ = buf_.size() - 1;
  }
  std::vector<T> buf_;
  std::size_t head_ = 0, tail_ = 0, mask_ = 0;
};

}  // namespace systole::models
