// The standard workloads (docs/workloads.md), defined once as templates over a structure
// adapter, so that the same operation sequence from the same seed drives every structure.
//
// Every random choice of a run (which timer, which deadline, where time jumps to) is drawn
// before timing into arrays that all structures then read in the same order: the PRNG stays out
// of the measured loop, and a structure's callbacks cannot perturb the sequence. Every run
// checks its own answer (see fire_checker and the verify_* functions) and the caller compares
// the fired count and the order-sensitive checksum across structures.
//
// Nodes: each structure gets a std::vector of node_bytes-sized, node_bytes-aligned nodes (the
// structure's hook plus a bench_payload holding the deadline the workload asked for): 64 bytes in
// timerwheel_bench, one cache line, so that every structure, and the floor, touches exactly one
// line per random node; 32 in timerwheel_bench_packed, two nodes a line.
#pragma once

#include "adapters/common.hpp"
#include "workloads/check.hpp"
#include "workloads/rng.hpp"
#include "workloads/startstop.hpp"
#include "workloads/w1.hpp"
#include "workloads/w2.hpp"
#include "workloads/w3.hpp"
#include "workloads/w4.hpp"
#include "workloads/w5.hpp"
#include "workloads/w6.hpp"
