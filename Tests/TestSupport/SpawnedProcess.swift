import Foundation
import WebRecord

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, and reaped by a thread of its own that waits
/// for it with `waitpid`.
///
/// The tests start their children this way rather than with Foundation's `Process`, whose
/// `run()` on Linux (swift-corelibs-foundation with Swift 6.3) intermittently crashes the test
/// process: it reads each `/proc/self/fd` entry's whole 256-byte name, past the end of the
/// directory buffer when an entry sits at its end before an unmapped page. Waiting with
/// `waitpid` also learns of the child's end whatever its descriptors' copies do (a shell's
/// background job that keeps one open left `Process` unaware that the shell had ended).
public final class SpawnedProcess: @unchecked Sendable {
    /// The child's process id.
    public let processIdentifier: Int32
    /// How it ended: its exit status, or its signal's number and true; nil while it runs.
    private let ending = Locked<(status: Int32, bySignal: Bool)?>(nil)
    private let ended = DispatchSemaphore(value: 0)

    /// What stopped a child from starting.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable` with `arguments` and exactly `environment`, in `directory`, with its
    /// standard input read from `input` (`/dev/null` when nil) and its standard output and
    /// error written to the files `output` and `error`. The child gets no other descriptor of
    /// this process, and the default disposition of every signal.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String,
        input: String?, output: String, error: String
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard let changeDirectory = Self.glibc("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self),
            let closeFrom = Self.glibc("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)
        else {
            throw Failure(description: "this C library has no posix_spawn_file_actions_addchdir_np or addclosefrom_np")
        }
        _ = directory.withCString { changeDirectory(&actions, $0) }
        _ = closeFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { for pointer in argv + envp { free(pointer) } }
        var spawned: pid_t = 0
        var argumentList = argv + [nil]
        var environmentList = envp + [nil]
        let result = argumentList.withUnsafeMutableBufferPointer { arguments in
            environmentList.withUnsafeMutableBufferPointer { environment in
                guard let argv = arguments.baseAddress, let envp = environment.baseAddress else { return EINVAL }
                return posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
            }
        }
        guard result == 0 else {
            throw Failure(description: "\(executable) could not be started: \(String(cString: strerror(result)))")
        }
        let pid = spawned
        processIdentifier = pid
        let (ending, ended) = (ending, ended)
        let waiter = Thread {
            var status: Int32 = 0
            var reaped: pid_t
            repeat {
                reaped = waitpid(pid, &status, 0)
            } while reaped < 0 && errno == EINTR
            let signal = status & 0x7F
            ending.withLock { $0 = signal == 0 ? ((status >> 8) & 0xFF, false) : (signal, true) }
            ended.signal()
        }
        waiter.start()
    }

    /// Whether the child still runs (it has not been reaped).
    public var isRunning: Bool { ending.withLock { $0 } == nil }

    /// How the child ended: its exit status, or its signal's number and true; nil while it runs.
    public var termination: (status: Int32, bySignal: Bool)? { ending.withLock { $0 } }

    /// Waits until the child has ended, or `deadline` passes: whether it has ended.
    public func wait(until deadline: Date) -> Bool {
        if !isRunning { return true }
        let seconds = max(0, deadline.timeIntervalSinceNow)
        guard ended.wait(timeout: .now() + seconds) == .success else { return !isRunning }
        // Later waits return at once.
        ended.signal()
        return true
    }

    private typealias ChangeDirectory =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// A function of the C library that Swift's module for it does not declare (the GNU
    /// extensions of `posix_spawn`).
    private static func glibc<T>(_ name: String, as type: T.Type) -> T? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}
