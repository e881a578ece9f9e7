#pragma once
// Command scheduling policies of the HBM channel controller (hbm.scheduler): FR-FCFS (Rixner et
// al., ISCA 2000: ready row hits first, then the oldest request) and strict FCFS (only the oldest
// request may advance). A pseudo-channel's decision considers one candidate command per bank
// (FR-FCFS: the bank's oldest row hit, else its oldest request's activate or precharge; FCFS: its
// oldest request's command) and issues at most one column and one row command (the channel has
// a column and a row command bus):
//  - FR-FCFS: the oldest ready column command and the oldest ready row command;
//  - FCFS: the oldest candidate, if it is ready.
// The next decision is due when the earliest waiting candidate can be ready, or, for a ready
// candidate that lost its bus, when that bus (and the terms the picks raised) allows.
// HbmController::decide implements the scan over the candidates inline (it runs for every
// decision: a branch-free pass over the column candidates, then one over the few row ones).

#include <cstdint>

#include "models/hbm/hbm_config.h"

namespace systole::models {

/// What the scheduling policy asks of the controller.
class HbmPicker {
 public:
  /// FR-FCFS looks past a bank's oldest request for one that hits the open row; FCFS does not.
  static bool hits_first(SchedulerKind kind) { return kind == SchedulerKind::kFrFcfs; }
};

}  // namespace systole::models
