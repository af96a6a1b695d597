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
