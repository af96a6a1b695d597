// libFuzzer target for WebRecord's JSON reader.
//
// Built by Fuzz/build.sh into the one fuzzing binary, together with the WebRecord library
// sources (one module), so it is not a package target and `swift test` never sees it.
//
// For every input the reader must either return a value or throw a positioned
// WebRecordError (code invalidJSON); it must never crash, hang or overflow the stack. Beyond "no crash" the
// target checks two properties and aborts (a libFuzzer crash) when one fails:
//
// - an accepted document serializes (compact, sorted and pretty) to text that reads back
//   as an equal value;
// - a rejected document's error has a line and column of at least 1, an offset inside the
//   input, and a message that names that line and column.

/// Fuzzes the JSON reader with one input (the `json-reader` target; FuzzMain.swift).
func jsonReaderFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // A small depth limit too, chosen by the input, so the limit's edges are exercised.
    let limits = [JSONReader.defaultMaximumDepth, size > 0 ? Int(input[size - 1] % 8) : 0]
    for limit in limits {
        let reader = JSONReader(maximumDepth: limit)
        do {
            let value = try reader.read(input)
            for (sorted, pretty) in [(false, false), (true, false), (false, true)] {
                let text = value.serialized(sortedKeys: sorted, prettyPrinted: pretty)
                let again: JSONValue
                do {
                    again = try reader.read(text)
                } catch {
                    fuzzFailure("serialized value does not read back: \(error)")
                }
                if again != value { fuzzFailure("round trip changed the value (sorted \(sorted), pretty \(pretty))") }
            }
        } catch {
            if error.code != .invalidJSON { fuzzFailure("rejected with \(error.code), not invalidJSON: \(error)") }
            guard let line = error.line, let column = error.column, let offset = error.offset else {
                fuzzFailure("rejected without a position: \(error)")
            }
            if line < 1 || column < 1 { fuzzFailure("bad position \(line):\(column)") }
            if offset < 0 || offset > size { fuzzFailure("offset \(offset) outside 0...\(size)") }
            if !error.description.contains("line \(line), column \(column)") {
                fuzzFailure("message does not name its position: \(error)")
            }
        }
    }
    return 0
}
