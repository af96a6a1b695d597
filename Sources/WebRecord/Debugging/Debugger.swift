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
        /// The messages of the errors ``recordOnce(_:)`` recorded.
        var onceMessages: Set<String> = []
        /// The secret values of the request whose errors this records (``hideSecrets(_:)``).
        var secrets: [String] = []
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
        holder = nil
    }

    /// A debugger that logs through `logger`: a store's own.
    init(initialEntity: String?, logger: Logger) {
        self.logger = logger
        self.initialEntity = initialEntity
        holder = nil
    }

    /// The debugger that the errors recorded here go to, in order, when the work they are part
    /// of takes its turn (``releaseHeld()``); nil for a debugger that records and logs at once.
    private let holder: Debugger?

    /// A debugger for work done ahead of its turn, on another thread (a streamed batch built
    /// while the one before is written): what is recorded is kept, unlogged, until
    /// ``releaseHeld()`` records it in `debugger`, and logs it, where the work's turn puts it. So
    /// the errors of a response come in the same order whatever the threads' timing.
    package init(holdingFor debugger: Debugger) {
        logger = debugger.logger
        initialEntity = debugger.initialEntity
        holder = debugger
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
        let secrets = state.withLock { $0.secrets }
        var error = secrets.isEmpty ? error : error.hidingSecrets(secrets)
        if logged, holder == nil {
            logger.log(error.isFatal ? .error : .warning, error.description, entity: error.entity)
        }
        error.debugger = nil
        state.withLock { state in
            state.errors.append(error)
            if error.isFatal, state.primaryError == nil { state.primaryError = error }
        }
    }

    /// Takes `secrets` (the values of a request's credentials, see
    /// ``Redaction/secretValues(headers:url:)``) out of every error recorded from now on, and out
    /// of what it logs: a server may echo a credential in a record, which a warning would quote.
    package func hideSecrets(_ secrets: [String]) {
        guard !secrets.isEmpty else { return }
        state.withLock { $0.secrets += secrets }
        holder?.hideSecrets(secrets)
    }

    /// Logs `message` at `level` through the debugger's logger, with the request's secrets
    /// (``hideSecrets(_:)``) and those ``Redaction`` finds by their names taken out: for a log
    /// line that quotes a response's values (a record's changes, a duplicate's values, the
    /// proto-record graph), into which a server may have echoed a credential.
    package func log(_ level: LogLevel, _ message: @autoclosure () -> String, entity: String? = nil) {
        guard logger.isEnabled(level) else { return }
        logger.log(level, Redaction.scrubbing(message(), secrets: requestSecrets), entity: entity)
    }

    /// The secrets to take out of what is logged: this debugger's and, for one that holds its
    /// errors, those of the debugger it holds them for.
    private var requestSecrets: [String] {
        state.withLock { $0.secrets } + (holder?.requestSecrets ?? [])
    }

    /// Records `error` unless an error with the same message is recorded already (here, or, for
    /// a debugger that holds its errors, where they go): a warning given once a response,
    /// however many of its records repeat it.
    package func recordOnce(_ error: WebRecordError) {
        if let holder, holder.errors.contains(where: { $0.message == error.message }) { return }
        guard !errors.contains(where: { $0.message == error.message }) else { return }
        record(error)
        state.withLock { _ = $0.onceMessages.insert(error.message) }
    }

    /// Records what this debugger holds (``init(holdingFor:)``) in the debugger it holds it for,
    /// in order, logging each, and forgets it here. A warning recorded once a response
    /// (``recordOnce(_:)``) that is there already is not recorded again.
    package func releaseHeld() {
        guard let holder else { return }
        let (held, once) = state.withLock { state in
            defer {
                state.errors = []
                state.primaryError = nil
                state.onceMessages = []
            }
            return (state.errors, state.onceMessages)
        }
        for error in held {
            if once.contains(error.message), holder.errors.contains(where: { $0.message == error.message }) { continue }
            holder.record(error)
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
