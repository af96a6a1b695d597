import Foundation
import WebRecord

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The progress line `populate` draws on standard error when it is a terminal, and not with
/// `--quiet` or `--json`: the source and page, what is being done, the bytes read, the records
/// populated and the records per second, such as
///
/// ```text
/// source 2/3, populating, 129.0 MB, 45312 records of 100000, 30512 records/s
/// ```
///
/// It is redrawn in place (`\r`, then the text, then `ESC [K` to clear the rest of the row),
/// within one response as the library's ``ResponseProgress`` arrives (at most ten times a
/// second) and after each response, cut to the terminal's width so that it never wraps.
/// ``finish()`` erases it (`\r ESC [K`): what stays on the screen is the summary, as if the
/// line had never been there. Disabled, it draws nothing at all.
///
/// `Sendable`: the library calls ``show(_:)`` on the thread doing the work, while the command
/// calls the rest; the state is behind a lock, and each redraw is written under it.
final class ProgressLine: Sendable {
    let isEnabled: Bool

    private struct State {
        /// The sources of the run, and the 0-based index of the one in flight.
        var sources: Int
        var source = 0
        /// Top-level records of the responses (sources, pages) done.
        var records = 0
        /// Pages done of the source in flight, when it is paged.
        var pages: Int?
        /// The total a page manager gave.
        var pagingTotal: Int?
        /// The response in flight, as the library last reported it.
        var response: ResponseProgress?
        /// The size of the file or standard input the source in flight was read from.
        var fileBytes: Int?
        var drawn = false
        var finished = false
        var lastDraw: UInt64 = 0
    }

    private let started = DispatchTime.now().uptimeNanoseconds
    private let state: Locked<State>

    /// The least time between two redraws the library did not ask for: 50 ms.
    private static let redrawInterval: UInt64 = 50_000_000

    /// A line for a run of `sources` sources; `isEnabled` false draws nothing.
    init(isEnabled: Bool, sources: Int) {
        self.isEnabled = isEnabled
        state = Locked(State(sources: sources))
    }

    /// The source at `index` starts; the line is redrawn once there is something to show of it.
    func begin(source index: Int, paged: Bool) {
        update(.never) { state in
            state.source = index
            state.pages = paged ? 0 : nil
            state.pagingTotal = nil
            state.response = nil
            state.fileBytes = nil
        }
    }

    /// The source in flight was read from a file or standard input, `bytes` long, and is
    /// being parsed.
    func read(bytes: Int) {
        update(.always) { $0.fileBytes = bytes }
    }

    /// How far the response in flight has come, from the library (``PopulationOptions/progress``).
    func show(_ progress: ResponseProgress) {
        update(.always) { $0.response = progress }
    }

    /// A response is populated: `records` top-level records in all so far, and, for a page,
    /// the paging counts.
    func completed(records: Int, paging: PagingProgress? = nil) {
        update(.throttled) { state in
            state.records = records
            state.response = nil
            state.fileBytes = nil
            if let paging {
                state.pages = paging.pagesFetched
                state.pagingTotal = paging.totalRecords
            }
        }
    }

    /// Erases the line, when one was drawn: the cursor is left at the start of a clean row.
    /// Nothing is drawn after it.
    func finish() {
        guard isEnabled else { return }
        state.withLock { state in
            if state.drawn { Output.err("\r\u{1B}[K") }
            state.drawn = false
            state.finished = true
        }
    }

    /// When an update redraws the line.
    private enum Redraw {
        /// Every time: the library's calls, already at most ten a second, and a file read.
        case always
        /// At most every 50 ms: after each response, which may be a small page.
        case throttled
        /// Not at all.
        case never
    }

    /// Applies `change` and redraws as `redraw` says.
    private func update(_ redraw: Redraw, _ change: (inout State) -> Void) {
        guard isEnabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            guard !state.finished else { return }
            change(&state)
            switch redraw {
            case .always: break
            case .throttled: guard now &- state.lastDraw >= Self.redrawInterval else { return }
            case .never: return
            }
            state.lastDraw = now
            state.drawn = true
            let text = Self.text(of: state, elapsed: TimeInterval(now &- started) / 1_000_000_000)
            Output.err("\r" + String(text.prefix(Self.columns() - 1)) + "\u{1B}[K")
        }
    }

    /// The line's text: `source 2/3, page 4, populating, 1.2 MB, 300 records of 900, 250 records/s`.
    private static func text(of state: State, elapsed: TimeInterval) -> String {
        var parts: [String] = []
        if state.sources > 1 { parts.append("source \(state.source + 1)/\(state.sources)") }
        let response = state.response
        // A response is in flight until it is completed, even once the library has finished it.
        let inFlight = response != nil || state.fileBytes != nil
        if let pages = state.pages { parts.append("page \(pages + (inFlight ? 1 : 0))") }
        if let response {
            parts.append(response.phase.rawValue)
        } else if state.fileBytes != nil {
            parts.append(ResponseProgress.Phase.reading.rawValue)
        }
        let bytes = max(response?.bytesRead ?? 0, state.fileBytes ?? 0)
        if let expected = response?.expectedBytes, expected > bytes {
            parts.append("\(size(bytes, unit: expected)) of \(size(expected))")
        } else if bytes > 0 {
            parts.append(size(bytes))
        }
        // A response's records join `state.records` when it is completed, and not before.
        let current = response?.recordsPopulated ?? 0
        let records = state.records + current
        var counted = "\(records) records"
        // Paged, only a page manager knows the total; else it is the responses' so far.
        let total = state.pages != nil ? state.pagingTotal : response?.totalRecords.map { state.records + $0 }
        if let total {
            counted += " of \(total)"
        }
        parts.append(counted)
        parts.append(String(format: "%.0f records/s", elapsed > 0 ? Double(records) / elapsed : 0))
        return parts.joined(separator: ", ")
    }

    /// `812 B`, `4.2 kB`, `129.0 MB`, `1.3 GB` (powers of 1000); a count shown beside a total
    /// takes the total's unit, without its symbol: `12.5 of 129.0 MB`.
    private static func size(_ bytes: Int, unit total: Int? = nil) -> String {
        let units: [(Double, String)] = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        let reference = Double(total ?? bytes)
        guard let (scale, symbol) = units.first(where: { reference >= $0.0 }) else {
            return total == nil ? "\(bytes) B" : "\(bytes)"
        }
        let number = String(format: "%.1f", Double(bytes) / scale)
        return total == nil ? "\(number) \(symbol)" : number
    }

    /// The terminal's width in columns, 80 when it does not say.
    private static func columns() -> Int {
        var size = winsize()
        #if canImport(Darwin)
            let request = TIOCGWINSZ
        #else
            let request = UInt(TIOCGWINSZ)
        #endif
        guard ioctl(STDERR_FILENO, request, &size) == 0, size.ws_col > 1 else { return 80 }
        return Int(size.ws_col)
    }
}
