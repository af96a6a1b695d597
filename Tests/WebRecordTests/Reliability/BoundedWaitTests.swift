import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every wait of the test support ends: a child whose descriptors outlive it, a child that
/// outlives its timeout and SIGKILL's aftermath, a thread that never ends. Each fails its test with a
/// message instead of hanging the suite. (The suite's time limit fails a wait that hangs.)
@Suite("Bounded waits", .timeLimit(MachineLoad.hangTimeLimit))
struct BoundedWaitTests {
    /// A shell whose background job keeps the descriptors the shell was given: a wait that
    /// learnt of the shell's end from those descriptors (as Foundation's `Process` does) would
    /// not see it while the job runs, and the ended shell would stay a zombie.
    static func shell(_ script: String) throws -> ChildProcess.Running {
        try ChildProcess.Running(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
    }

    @Test func aChildProcessDoesNotReportIsReapedWithItsStatus() async throws {
        // Only reaping the shell ends this wait with its status: waiting on its descriptors, the
        // wait would time out (and SIGKILL does not end a zombie). No elapsed time is compared.
        let child = try Self.shell("sleep 1200 & echo $!; exit 3")
        let result = try await child.wait()
        let job = pid_t(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        defer { if let job { kill(job, SIGKILL) } }
        #expect(result.status == 3 && !result.killedBySignal, "\(result)")
        #expect(job != nil, "the shell printed its background job's pid: \(result.stdout)")
        #expect(!ChildProcess.isZombie(child.process.processIdentifier), "the shell was reaped")
        #expect(child.hasEnded)
    }

    @Test func aChildThatOutlivesItsTimeoutIsKilledAndTheWaitEnds() async throws {
        // The shell (become `sleep`) would end after twenty minutes: only the 5 s timeout can
        // end this wait, with a Timeout. (The timeout leaves the shell time to start its
        // background job, which the test kills when it ends, as it kills nothing else.)
        let child = try Self.shell("sleep 1200 & echo $!; exec sleep 1200")
        let error = await #expect(throws: ChildProcess.Timeout.self) { _ = try await child.wait(timeout: 5) }
        if let job = pid_t(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(job, SIGKILL) }
        #expect(error?.description.contains("did not finish within") == true, "\(String(describing: error))")
        #expect(error?.survivedKill == false, "SIGKILL ended the shell, and the wait saw it")
        #expect(!ChildProcess.isZombie(child.process.processIdentifier), "the killed shell was reaped")
    }

    @Test func aThreadThatDoesNotEndFailsTheWait() async throws {
        let release = DispatchSemaphore(value: 0)
        let thread = StartedThread { release.wait(timeout: .now() + 600) == .success }
        let error = await #expect(throws: StartedThread<Bool>.Timeout.self) { _ = try await thread.value(timeout: 0.5) }
        #expect(error?.description.contains("had not ended after") == true)
        release.signal()
        #expect(try await thread.value() == true)
    }
}
