import Foundation
import TestSupport
import Testing

@testable import PostgreSQLTestSupport

/// The PostgreSQL test support's commands (initdb, pg_ctl, psql) are waited for with a bound:
/// one that does not end fails its test, naming it, instead of hanging the suite.
@Suite("Detached commands", .timeLimit(MachineLoad.hangTimeLimit))
struct DetachedCommandTests {
    @Test func aCommandThatDoesNotEndIsKilledAndNamed() throws {
        // The command (the shell become `sleep`, so that killing it leaves nothing behind)
        // would end after twenty minutes: only the 10 s timeout can end this wait with a
        // failure. No elapsed time is compared, so the test holds however loaded the machine
        // is. (The timeout leaves the shell time to print "waiting".)
        let error = #expect(throws: PostgreSQLTestServer.Failure.self) {
            _ = try DetachedCommand.run(["/bin/sh", "-c", "echo waiting; exec sleep 1200"], timeout: 10)
        }
        let message = error?.description ?? ""
        let bound = Int(Sanitizer.bound(10))
        #expect(
            message.contains(
                "/bin/sh -c echo waiting; exec sleep 1200 did not finish within \(bound) s; it was killed\n"),
            "the wait after SIGKILL saw the end: \(message)")
        #expect(message.contains("waiting"), "the output is quoted: \(message)")
    }

    @Test func aCommandThatEndsGivesItsStatusAndOutput() throws {
        let result = try DetachedCommand.run(["/bin/sh", "-c", "echo done; exit 4"])
        #expect(result.status == 4)
        #expect(result.output == "done\n")
    }
}
