import Media
import Recovery

/// A whole second on the simulated time line.
func at(_ second: Int) -> Instant {
    .seconds(Double(second))
}

/// An action as a timeline line reads it: "6: rebuild".
func line<A: RecoveryAction>(_ second: Int, _ action: A) -> String {
    "\(second): \(describe(action))"
}

func describe<A: RecoveryAction>(_ action: A) -> String {
    if let ladderAction = action as? StallLadder.Action {
        switch ladderAction {
        case .notice(let notice, _): return "notice \(notice.text)"
        case .stepPassed(let step, _): return "passed \(step.rawValue)"
        default: break
        }
    }
    return action.step.rawValue
}

/// Drives stall ladders second by second, one shared share-again budget
/// between them, as the I/O layer does: each second, for each receiver in
/// turn, its events, then frames that left, then the tick.
struct LadderTimeline {
    var ladders: [StallLadder]
    var budget = ShareAgainBudget()
    /// Every action, per receiver, as timeline lines.
    var lines: [[String]]
    var actions: [[(second: Int, action: StallLadder.Action)]]

    init(receivers: [String] = ["Vicky"]) {
        ladders = receivers.map(StallLadder.init(receiver:))
        lines = receivers.map { _ in [] }
        actions = receivers.map { _ in [] }
    }

    /// What a receiver does in one second.
    struct Second {
        var report = false
        var clear = false
        var framesLeave = true
        var screenStoppedLeaving = false
    }

    mutating func run(
        _ seconds: ClosedRange<Int>, receiver index: Int = 0, _ script: (Int) -> Second
    ) {
        for second in seconds {
            step(second, receiver: index, script(second))
        }
    }

    /// One second for one receiver.
    mutating func step(_ second: Int, receiver index: Int, _ plan: Second) {
        let now = at(second)
        var taken: [StallLadder.Action] = []
        if plan.report { taken += ladders[index].stallReported(now: now) }
        if plan.clear { taken += ladders[index].stallCleared(now: now) }
        if plan.framesLeave { ladders[index].framesLeft(now: now) }
        taken += ladders[index].tick(now: now, screenStoppedLeaving: plan.screenStoppedLeaving, budget: &budget)
        for action in taken {
            lines[index].append(line(second, action))
            actions[index].append((second, action))
        }
    }

    /// The lines without the repeated keyframes, which only fill the gaps
    /// between the steps: a keyframe is kept only as the first of a report,
    /// where the "recovering" notice follows it.
    func steps(of index: Int = 0) -> [String] {
        let all = actions[index]
        return all.indices.compactMap { i in
            let (second, action) = all[i]
            if case .sendKeyframe = action {
                guard i + 1 < all.count, case .notice(.recovering, _) = all[i + 1].action else { return nil }
            }
            return line(second, action)
        }
    }
}
