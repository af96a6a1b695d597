import Foundation

/// Delivers one response's ``ResponseProgress`` to its callbacks at a bounded rate, from the
/// code that downloads, reads and populates the response.
///
/// The latest progress is delivered at most once an interval, and not before the first interval
/// has passed, so that a quick response costs one call: the last. A change that comes before
/// its time is delivered when the time comes, by a one-shot timer, unless a later one has
/// replaced it or the response has ended; so a phase with nothing to count (the parse of a
/// body) shows too. ``finish(records:)`` always delivers, and nothing is delivered after it.
/// Calls are made under a lock, so they never overlap and arrive in order.
///
/// The hot loops call it every few dozen records, and it reads the clock only then: a
/// population with no callback has no reporter, and one with a callback pays a clock read
/// and a lock per call, and at most one timer an interval.
///
/// The servers that report their download or reading (``HTTPServer``, ``JSONFileServer``) find
/// the reporter of the request they serve in ``current``, a task-local value.
package final class ProgressReporter: Sendable {
    /// The reporter of the request the current task serves, when its caller asked for progress.
    @TaskLocal package static var current: ProgressReporter?

    /// The interval of ``PopulationOptions/progressInterval``'s default: a tenth of a second.
    package static let defaultInterval = Duration.milliseconds(100)

    private struct State {
        var progress = ResponseProgress(phase: .populating)
        /// When progress may next be delivered, in uptime nanoseconds.
        var due: UInt64
        /// Whether ``progress`` has changed since it was last delivered.
        var pending = false
        /// Whether a timer will deliver the pending progress.
        var armed = false
        var finished = false
    }

    private let callback: @Sendable (ResponseProgress) -> Void
    private let started: UInt64
    private let interval: UInt64
    private let state: Locked<State>

    /// A reporter calling `callback`, starting its clock now.
    ///
    /// The start counts as a change: a response still in its first phase after the first
    /// interval (a server slow to answer) hears so then.
    ///
    /// - Parameters:
    ///   - interval: the least time between two deliveries, and the quiet time at the start.
    ///   - phase: the phase the response starts in.
    ///   - callback: what is called with the progress.
    package init(
        interval: Duration, phase: ResponseProgress.Phase,
        callback: @escaping @Sendable (ResponseProgress) -> Void
    ) {
        let now = DispatchTime.now().uptimeNanoseconds
        let components = interval.components
        let nanoseconds = max(0, components.seconds) * 1_000_000_000 + max(0, components.attoseconds) / 1_000_000_000
        self.callback = callback
        self.started = now
        self.interval = UInt64(clamping: nanoseconds)
        var initial = State(due: now &+ self.interval, pending: true, armed: true)
        initial.progress.phase = phase
        self.state = Locked(initial)
        schedule(after: self.interval)
    }

    /// A reporter calling each of `callbacks` in turn, or nil when none is set.
    package static func make(
        interval: Duration, phase: ResponseProgress.Phase, callbacks: [(@Sendable (ResponseProgress) -> Void)?]
    ) -> ProgressReporter? {
        let set = callbacks.compactMap { $0 }
        guard let first = set.first else { return nil }
        if set.count == 1 { return ProgressReporter(interval: interval, phase: phase, callback: first) }
        return ProgressReporter(interval: interval, phase: phase) { progress in
            for callback in set { callback(progress) }
        }
    }

    /// `bytes` of the body have arrived; the server announced `expected` (nil or negative: it
    /// did not say).
    package func downloaded(_ bytes: Int, expected: Int?) {
        update(.downloading) { progress in
            progress.bytesRead = bytes
            // A body decoded on the way (gzip) outgrows its Content-Length: the total is unknown.
            progress.expectedBytes = expected.flatMap { $0 >= bytes ? $0 : nil }
        }
    }

    /// The whole body, `bytes` long, has arrived or been read, and is being parsed.
    package func reading(_ bytes: Int) {
        update(.reading) { progress in
            progress.bytesRead = bytes
            progress.expectedBytes = bytes
        }
    }

    /// The population starts, with `total` top-level values at the key path.
    package func populating(total: Int?) {
        update(.populating) { $0.totalRecords = total }
    }

    /// `records` top-level records are mapped.
    package func populated(_ records: Int) {
        update(.populating) { $0.recordsPopulated = records }
    }

    /// A streamed response: `bytes` of its `expected` (nil: unknown) are read, and `records`
    /// top-level values mapped.
    package func streamed(bytes: Int, expected: Int?, records: Int) {
        update(.populating) { progress in
            progress.bytesRead = bytes
            progress.expectedBytes = expected.flatMap { $0 >= bytes ? $0 : nil }
            progress.recordsPopulated = records
        }
    }

    /// The population's rows are being written; `records` top-level records were mapped.
    package func writing(records: Int) {
        update(.writing) { $0.recordsPopulated = records }
    }

    /// The response is populated, with `records` top-level records: the last call, always made.
    package func finish(records: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = true
            state.progress.phase = .finished
            state.progress.recordsPopulated = records
            state.progress.elapsed = seconds(since: now)
            callback(state.progress)
        }
    }

    /// Applies `change` in `phase` and delivers the progress when it is due, or arms a timer to
    /// deliver it then.
    private func update(_ phase: ResponseProgress.Phase, _ change: (inout ResponseProgress) -> Void) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            guard !state.finished else { return }
            state.progress.phase = phase
            change(&state.progress)
            state.pending = true
            deliverOrArm(&state, now: now)
        }
    }

    /// The timer's delivery of the pending progress.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            state.armed = false
            guard !state.finished, state.pending else { return }
            deliverOrArm(&state, now: now)
        }
    }

    /// Under the lock: delivers the pending progress when it is due, else arms the timer.
    private func deliverOrArm(_ state: inout State, now: UInt64) {
        if now >= state.due {
            state.pending = false
            state.due = now &+ interval
            state.progress.elapsed = seconds(since: now)
            callback(state.progress)
        } else if !state.armed {
            state.armed = true
            schedule(after: state.due &- now)
        }
    }

    /// Calls ``fire()`` in `nanoseconds`.
    private func schedule(after nanoseconds: UInt64) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [self] in
            fire()
        }
    }

    private func seconds(since now: UInt64) -> TimeInterval {
        TimeInterval(now &- started) / 1_000_000_000
    }
}
