// The indexed heaps written for the bench (bench/indexed_binary_heap.hpp): the binary one every
// ratio is taken against (Boost.Asio's and libuv's layout), the variant that reads its keys
// through the nodes (--all-heaps), libev's 4-ary heap, and both arities in the compact layout
// (16-byte entries, the sequence number in the node, children on one cache line).
#pragma once

#include "../indexed_binary_heap.hpp"
#include "intrusive.hpp"

namespace timerwheel_bench {

struct heap_name {
  static constexpr const char* value = "heap";
};
struct heap_nodekey_name {
  static constexpr const char* value = "heap_nodekey";
};
struct heap4_name {
  static constexpr const char* value = "heap4";
};
struct heap_compact_name {
  static constexpr const char* value = "heap_compact";
};
struct heap4_compact_name {
  static constexpr const char* value = "heap4_compact";
};

template <class Heap, class Name>
using heap_adapter = intrusive_adapter<Heap, typename Heap::node_type, Name>;

using heap = heap_adapter<indexed_binary_heap<true>, heap_name>;
using heap_nodekey = heap_adapter<indexed_binary_heap<false>, heap_nodekey_name>;
using heap4 = heap_adapter<indexed_4ary_heap, heap4_name>;
using heap_compact = heap_adapter<compact_binary_heap, heap_compact_name>;
using heap4_compact = heap_adapter<compact_4ary_heap, heap4_compact_name>;

}  // namespace timerwheel_bench
