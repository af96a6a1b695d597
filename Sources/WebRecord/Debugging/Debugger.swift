import Foundation

/// Collects every error met while a request or population runs.
///
/// MMRecord's debugger, kept: a failure carries it, and so does a success, with the
/// non-fatal entries (a missing primary key, a value of the wrong type, an empty result)
/// that did not stop the work.
///
/// For example:
///
/// ```swift
/// let result = try await store.startRequest(entity: "Post", urn: "posts")
/// for warning in result.debugger.errors where !warning.isFatal {
///     print(warning)
/// }
/// ```
public final class Debugger: Sendable, CustomStringConvertible, CustomReflectable {
    private struct State {
        var errors: [WebRecordError] = []
        var primaryError: WebRecordError?
        var responseObject: JSONValue?
        var retries: [WebRecordError] = []
    }

    private let state = Locked(State())

    /// The entity the request started from.
    public let initialEntity: String?

    /// Creates an empty debugger for a request on `initialEntity`.
    /// Where the errors recorded are logged.
    let logger: Logger

    package init(initialEntity: String? = nil) {
        self.logger = .global
        self.initialEntity = initialEntity
    }

    /// A debugger that logs through `logger`: a store's own.
    init(initialEntity: String?, logger: Logger) {
        self.logger = logger
        self.initialEntity = initialEntity
    }

    /// Every error met, in the order met, fatal and non-fatal.
    public var errors: [WebRecordError] { state.withLock { $0.errors } }

    /// The non-fatal errors only.
    public var warnings: [WebRecordError] { state.withLock { $0.errors.filter { !$0.isFatal } } }

    /// The fatal error that ended the work, if any.
    public var primaryError: WebRecordError? { state.withLock { $0.primaryError } }

    /// The response the work was about, once known.
    public var responseObject: JSONValue? { state.withLock { $0.responseObject } }

    /// The conflicts with other writers after which the work was tried again, in order: a
    /// serialization failure, a deadlock, or a key another writer inserted first, on a store
    /// many workers share (PostgreSQL). Their count is the number of retries; each was logged as
    /// a warning when it happened. None of them is among ``errors``: the attempt they ended was
    /// rolled back, and only the last attempt's errors are kept.
    public var retries: [WebRecordError] { state.withLock { $0.retries } }

    /// Whether any error was recorded with the given code.
    public func contains(_ code: WebRecordError.Code) -> Bool {
        state.withLock { $0.errors.contains { $0.code == code } }
    }

    /// Records an error, and logs it (as an error when fatal, a warning otherwise) unless
    /// `logged` is false. The first fatal one becomes the ``primaryError``.
    package func record(_ error: WebRecordError, logged: Bool = true) {
        if logged { logger.log(error.isFatal ? .error : .warning, error.description, entity: error.entity) }
        var error = error
        error.debugger = nil
        state.withLock { state in
            state.errors.append(error)
            if error.isFatal, state.primaryError == nil { state.primaryError = error }
        }
    }

    /// Forgets the first warning that `matches`: one a later part of the same work made untrue
    /// (a streamed record one batch could not store, and a later batch completed).
    package func withdrawWarning(where matches: (WebRecordError) -> Bool) {
        state.withLock { state in
            guard let index = state.errors.firstIndex(where: { !$0.isFatal && matches($0) }) else { return }
            state.errors.remove(at: index)
        }
    }

    /// Adds `conflicts` to ``retries``.
    package func recordRetries(_ conflicts: [WebRecordError]) {
        guard !conflicts.isEmpty else { return }
        let conflicts = conflicts.map { conflict in
            var conflict = conflict
            conflict.debugger = nil
            return conflict
        }
        state.withLock { $0.retries += conflicts }
    }

    /// How many errors are recorded: where ``restore(_:)`` goes back to.
    package func checkpoint() -> Int {
        state.withLock { $0.errors.count }
    }

    /// Forgets the errors recorded after `checkpoint` (an attempt that was rolled back and is
    /// tried again), and the primary error when it was one of them.
    package func restore(_ checkpoint: Int) {
        state.withLock { state in
            guard state.errors.count > checkpoint else { return }
            state.errors.removeSubrange(checkpoint...)
            state.primaryError = state.errors.first { $0.isFatal }
        }
    }

    /// Records the response object the work is about.
    package func setResponseObject(_ response: JSONValue?) {
        state.withLock { $0.responseObject = response }
    }

    /// What the debugger holds, for `dump`: the initial entity, the errors and the response
    /// object, with the response's secret members redacted (see ``Redaction/secretNames``).
    public var customMirror: Mirror {
        let state = self.state.withLock { $0 }
        return Mirror(
            self,
            children: [
                "initialEntity": initialEntity as Any, "errors": state.errors,
                "primaryError": state.primaryError as Any, "retries": state.retries,
                "responseObject": Redaction.json(state.responseObject) as Any,
            ],
            displayStyle: .class)
    }

    /// A summary: the count of errors and each on its own line, secrets redacted.
    public var description: String {
        let errors = self.errors
        if errors.isEmpty { return "Debugger: no errors" }
        return (["Debugger: \(errors.count) error(s)"] + errors.map { "  \($0)" }).joined(separator: "\n")
    }
}
