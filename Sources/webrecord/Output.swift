import Foundation
import WebRecord

/// Writes to standard output and standard error.
///
/// Results go to stdout, everything else (errors, warnings, progress) to stderr, so a
/// script can pipe stdout into another tool.
enum Output {
    /// Writes text to standard output.
    static func out(_ text: String) {
        write(Data(text.utf8), to: .standardOutput)
    }

    /// Writes bytes to standard output.
    static func out(bytes: [UInt8]) {
        write(Data(bytes), to: .standardOutput)
    }

    /// Writes text to standard error, with any secret it may carry redacted (a URL's password,
    /// a `name=value` pair whose name is secret): messages name their sources already redacted,
    /// and this is the net under them.
    static func err(_ text: String) {
        write(Data(Redaction.redacted(text).utf8), to: .standardError)
    }

    /// Writes `text` and a newline to standard output at once, unbuffered.
    ///
    /// - Returns: false when standard output is closed (a pipe whose reader went away) or
    ///   refused the bytes; the latter is kept for ``writeFailure``.
    static func writeLine(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return write(bytes, to: STDOUT_FILENO)
    }

    /// Why standard output refused what was written to it (a full disk: `ENOSPC`), if it did;
    /// nil when every write went through, or when its reader went away (`EPIPE`, a closed pipe:
    /// `webrecord export | head`), which is no failure of the command.
    static var writeFailure: String? { failure.withLock { $0 } }

    private static let failure = Locked<String?>(nil)

    /// Writes every byte to `descriptor`, retrying an interrupted write.
    ///
    /// - Returns: false when a write failed; a failure other than a closed pipe is kept for
    ///   ``writeFailure`` (standard output's only).
    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let code = count < 0 ? errno : ENOSPC
                if descriptor == STDOUT_FILENO, code != EPIPE {
                    failure.withLock { $0 = $0 ?? String(cString: strerror(code)) }
                }
                return false
            }
            written += count
        }
        return true
    }

    /// Whether standard output is a pipe whose reader has gone away.
    static var isStandardOutputClosed: Bool {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        return descriptor.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Whether standard error is a terminal (progress and notes are shown only there).
    static var isErrorTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    private static func write(_ data: Data, to handle: FileHandle) {
        guard !data.isEmpty else { return }
        _ = write(Array(data), to: handle.fileDescriptor)
    }
}
