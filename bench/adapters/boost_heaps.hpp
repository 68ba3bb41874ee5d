// Boost.Heap's mutable heaps (d_ary_heap with arity 4, pairing_heap) through keyed_adapter:
// push returns a handle that erase takes.
#pragma once

#include <boost/heap/d_ary_heap.hpp>
#include <boost/heap/pairing_heap.hpp>
#include <functional>

#include "keyed.hpp"

namespace timerwheel_bench {

// Boost.Heap's mutable heaps: push returns a handle that erase takes.
template <class Heap, class Name>
struct boost_heap_policy {
  static constexpr const char* value = Name::value;
  using container = Heap;
  using handle = typename Heap::handle_type;
  static handle push(container& c, const timer_key& k) { return c.push(k); }
  static void erase(container& c, handle h) { c.erase(h); }
  static const timer_key& top(const container& c) { return c.top(); }
  static void pop(container& c) { c.pop(); }
};

struct boost_dary_name {
  static constexpr const char* value = "boost_dary4";
};
struct boost_pairing_name {
  static constexpr const char* value = "boost_pairing";
};
// Boost.Heap is a max-heap: std::greater makes the earliest the top.
using boost_dary_heap =
    boost::heap::d_ary_heap<timer_key, boost::heap::arity<4>, boost::heap::mutable_<true>,
                            boost::heap::compare<std::greater<timer_key>>>;
using boost_pairing_heap =
    boost::heap::pairing_heap<timer_key, boost::heap::compare<std::greater<timer_key>>>;

using boost_dary = keyed_adapter<boost_heap_policy<boost_dary_heap, boost_dary_name>>;
using boost_pairing = keyed_adapter<boost_heap_policy<boost_pairing_heap, boost_pairing_name>>;

}  // namespace timerwheel_bench
