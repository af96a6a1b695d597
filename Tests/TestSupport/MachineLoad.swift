import Foundation
import Testing

/// Keeps the suites that load the machine apart from the suites that measure time.
///
/// Swift Testing runs suites in parallel on the cooperative thread pool, which has one
/// thread per core. The reliability suites keep those threads busy for a minute and more
/// (thousands of populations, child processes killed and dumped, another process reading),
/// and a suite that waits for a loopback server or compares elapsed time against a timeout
/// then sees its clock run while it gets no thread. Suites marked `.loadsTheMachine` may run
/// together, and suites marked `.measuresTime` may run together, but never one kind while
/// the other runs. Unmarked suites run as usual.
public struct MachineLoadTrait: SuiteTrait, TestTrait, TestScoping {
    fileprivate let kind: MachineLoadGate.Kind

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await MachineLoadGate.shared.enter(kind)
        do {
            try await function()
        } catch {
            await MachineLoadGate.shared.leave()
            throw error
        }
        await MachineLoadGate.shared.leave()
    }
}

extension Trait where Self == MachineLoadTrait {
    /// A suite that keeps every core busy for long stretches.
    public static var loadsTheMachine: Self { MachineLoadTrait(kind: .heavy) }

    /// A suite whose tests wait on wall-clock time (loopback servers, timeouts, delays).
    public static var measuresTime: Self { MachineLoadTrait(kind: .timed) }
}

/// Admits any number of holders of one kind at a time, first come first served between
/// the kinds, so that neither kind waits forever.
actor MachineLoadGate {
    enum Kind { case heavy, timed }

    static let shared = MachineLoadGate()

    private var active: Kind?
    private var holders = 0
    private var waiters: [(kind: Kind, continuation: CheckedContinuation<Void, Never>)] = []

    func enter(_ kind: Kind) async {
        if holders == 0 || (active == kind && waiters.isEmpty) {
            active = kind
            holders += 1
            return
        }
        await withCheckedContinuation { waiters.append((kind, $0)) }
    }

    func leave() {
        holders -= 1
        guard holders == 0 else { return }
        guard let next = waiters.first?.kind else {
            active = nil
            return
        }
        active = next
        let admitted = waiters.filter { $0.kind == next }
        waiters.removeAll { $0.kind == next }
        holders = admitted.count
        for waiter in admitted { waiter.continuation.resume() }
    }
}

/// The bounds of the waits that only a hang may exhaust, however loaded the machine is.
///
/// A full run of the suite on two cores has stretched a `webrecord` run that takes half a
/// second on an idle machine to 26 s, and a task has waited about 25 s there for one of the
/// task pool's threads. A wait that gives up, on a child process, a thread, a server or a
/// condition polled, gives up after ``hangTimeout``, far beyond anything load adds; what it
/// waits for, when a test must show that something else ended the wait first, lasts longer
/// still (ten minutes).
public enum MachineLoad {
    /// Five minutes: how long a wait for something that takes seconds at most on an idle
    /// machine goes on before it gives up (ten times as long under a sanitizer where the wait
    /// stretches its bound, see ``Sanitizer/bound(_:)``).
    public static let hangTimeout: TimeInterval = 300

    /// The time limit of a suite that guards its tests against a hang: ten minutes a test, a
    /// hundred under a sanitizer. It lies beyond the ``hangTimeout`` of any one wait, so that a
    /// wait that gives up fails its test with its own message first.
    public static var hangTimeLimit: TimeLimitTrait.Duration { .minutes(Sanitizer.isActive ? 100 : 10) }
}
