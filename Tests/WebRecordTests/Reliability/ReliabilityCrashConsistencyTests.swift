import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// `webrecord populate` killed with SIGKILL at random moments (a fixed seed) while it
/// populates a large response: after each kill the store passes `PRAGMA integrity_check`, and
/// its content is exactly the state before the population or exactly the state after a
/// complete one, never anything in between.
@Suite("Reliability: crash consistency", .loadsTheMachine)
struct ReliabilityCrashConsistencyTests {
    /// Posts in the first, smaller response (the state before).
    static let firstPosts = 300
    /// Posts in the large response; the first 200 of them update posts of the first response.
    static let largePosts = 20_000
    /// Kills required.
    static let requiredKills = 20
    /// Trials allowed in all (a trial whose child finished before its kill does not count).
    static let maximumTrials = 40

    @Test("SIGKILL during webrecord populate leaves the state before or the state after, never between")
    func killedPopulationsAreAtomic() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let schema = Reliability.appNetSchemaURL.path
        let small = try directory.write(
            "first.json", AppNetResponses.bytes(AppNetResponses.response(posts: Self.firstPosts, seed: 31)))
        let large = try directory.write(
            "large.json",
            AppNetResponses.bytes(
                AppNetResponses.response(posts: Self.largePosts, firstID: Self.firstPosts - 199, seed: 32, version: 1)))

        func populate(_ db: String, _ source: String) async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                webrecord, ["populate", "--schema", schema, "--db", db, "--entity", "Post", "--quiet", source],
                timeout: 600)
        }
        /// Opens the store as a user would after a crash (recovering its WAL), checks it and dumps it.
        func check(_ db: String) throws -> (integrity: [String], dump: [String]) {
            let store = try RecordStore(path: db, schema: Reliability.appNetSchema())
            return (try Reliability.integrity(store), try Reliability.dump(store))
        }

        // The state before: the first response, in a closed store (no WAL left).
        let beforeDB = directory.path("before.sqlite")
        let first = try await populate(beforeDB, small)
        try #require(first.status == 0, "\(first)")
        let before = try check(beforeDB)
        try #require(before.integrity == ["ok"])
        try #require(!FileManager.default.fileExists(atPath: beforeDB + "-wal"))
        let beforeFile = try Data(contentsOf: URL(fileURLWithPath: beforeDB))

        // The state after a complete run, and how long one takes.
        let afterDB = directory.path("after.sqlite")
        try beforeFile.write(to: URL(fileURLWithPath: afterDB))
        let start = Date()
        let complete = try await populate(afterDB, large)
        var duration = Date().timeIntervalSince(start)
        let firstDuration = duration
        try #require(complete.status == 0, "\(complete)")
        let after = try check(afterDB)
        try #require(after.integrity == ["ok"])
        try #require(after.dump != before.dump)
        #expect(after.dump.filter { $0.hasPrefix("Post: ") }.count == (Self.firstPosts - 200) + Self.largePosts)

        var random = SeededRandom(seed: 0x5EED_C0DE)
        var kills = 0
        var trials = 0
        var outcomes: [String: Int] = [:]
        while kills < Self.requiredKills && trials < Self.maximumTrials {
            trials += 1
            let db = directory.path("trial-\(trials).sqlite")
            try beforeFile.write(to: URL(fileURLWithPath: db))
            // Odd trials anywhere in the run, from its start to its usual end. Even ones inside
            // the write transaction: reading and mapping the response come first, outside any
            // transaction, so they wait for the WAL to receive its first frames, then kill
            // within the next 0.3 s (some land after the commit, before the process exits).
            let start = Date()
            let child = try ChildProcess.Running(
                webrecord, ["populate", "--schema", schema, "--db", db, "--entity", "Post", "--quiet", large])
            let delay: TimeInterval
            let (wasRunning, endedAfter): (Bool, TimeInterval?)
            if trials % 2 == 1 {
                delay = duration * (0.02 + 0.98 * random.nextFraction())
                (wasRunning, endedAfter) = await child.kill(at: delay, after: start)
            } else {
                delay = 0.3 * random.nextFraction()
                (wasRunning, endedAfter) = await child.kill(
                    delay, afterFileGrows: db + "-wal", start: start, timeout: 600)
            }
            let result = try await child.wait(timeout: 600)
            // Runs get faster when the tests around this one finish: aim at the shortest run seen.
            if let endedAfter { duration = min(duration, endedAfter) }
            let walBytes = (try? FileManager.default.attributesOfItem(atPath: db + "-wal")[.size] as? Int) ?? nil

            let state = try check(db)
            #expect(state.integrity == ["ok"], "trial \(trials) (kill after \(delay) s): \(state.integrity)")
            let outcome: String
            if state.dump == before.dump {
                outcome = "before"
            } else if state.dump == after.dump {
                outcome = "after"
            } else {
                outcome = "between"
                Issue.record(
                    "trial \(trials): killed at \(delay) s, the store is neither before (\(before.dump.count) rows) nor after (\(after.dump.count) rows): \(state.dump.count) rows"
                )
            }
            if wasRunning && result.killedBySignal {
                kills += 1
                // A WAL with frames at the kill, and the old state: the kill hit an open write transaction.
                let phase = outcome == "before" ? ((walBytes ?? 0) > 0 ? "mid-write" : "before writing") : outcome
                outcomes["killed, \(phase)", default: 0] += 1
            } else {
                #expect(result.status == 0 && outcome == "after", "trial \(trials) finished on its own: \(result)")
                outcomes["finished before the kill", default: 0] += 1
            }
            try? FileManager.default.removeItem(atPath: db)
            try? FileManager.default.removeItem(atPath: db + "-wal")
            try? FileManager.default.removeItem(atPath: db + "-shm")
        }
        #expect(kills >= Self.requiredKills, "only \(kills) of \(trials) trials were killed mid-run: \(outcomes)")
        #expect(!outcomes.keys.contains { $0.contains("between") }, "\(outcomes)")
        // At least one kill hit an open write transaction (a WAL holding its frames).
        #expect(outcomes["killed, mid-write", default: 0] >= 1, "no kill hit the write transaction: \(outcomes)")
        let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        print(
            "[reliability] crash consistency: \(trials) trials, \(kills) kills; complete run \(String(format: "%.1f", firstDuration)) s; \(summary)"
        )
    }
}
