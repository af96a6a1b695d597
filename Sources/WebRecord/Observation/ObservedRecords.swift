import Foundation
import Observation

/// Observed results as an `@Observable` object, updated on the main actor: a SwiftUI view reads
/// its ``records``, ``sections`` and last ``changes`` directly, and redraws when they change.
///
/// For example:
///
/// ```swift
/// let posts = ObservedRecords(Post.observe(in: store, orderBy: [.descending("date")]))
/// // in a SwiftUI view: List(posts.records, id: \.rowID) { Text($0.text ?? "") }
/// ```
///
/// The object starts observing when it is made and stops when it is released. Each delivery
/// changes its properties in one main-actor turn, so an observer of them sees one change per
/// delivery. A failure is kept in ``error``, and ends the observation.
@MainActor
@Observable
public final class ObservedRecords<RecordClass: Record> {
    /// The records, in the observation's order; empty until the initial results arrive.
    public private(set) var records: [RecordClass] = []
    /// The sections, when the observation has a section key.
    public private(set) var sections: [RecordSection] = []
    /// What the last delivery changed; nil until a change follows the initial results.
    public private(set) var changes: ChangeSet<Int>?
    /// The last change as positions in sections, when the observation has a section key.
    public private(set) var sectionChanges: ChangeSet<RecordPosition>?
    /// How many deliveries have arrived, the initial results included.
    public private(set) var deliveries = 0
    /// The failure that ended the observation, if one did.
    public private(set) var error: WebRecordError?

    @ObservationIgnored private let runner = Runner()

    /// Starts observing `observation`.
    public init(_ observation: RecordObservation<RecordClass>) {
        runner.start(
            Task { [weak self] in
                var iterator = observation.makeAsyncIterator()
                do throws(WebRecordError) {
                    while let results = try await iterator.next(isolation: MainActor.shared) {
                        guard let self else { return }
                        self.apply(results)
                    }
                } catch {
                    self?.error = error
                }
            })
    }

    private func apply(_ results: consuming ObservedResults<RecordClass>) {
        records = results.records
        sections = results.sections
        changes = results.changes
        sectionChanges = results.sectionChanges
        deliveries += 1
    }

    /// Holds the observing task, and cancels it when the object goes.
    private final class Runner: Sendable {
        private let task = Locked<Task<Void, Never>?>(nil)

        func start(_ task: Task<Void, Never>) {
            self.task.withLock { $0 = task }
        }

        deinit {
            task.withLock { $0?.cancel() }
        }
    }
}
