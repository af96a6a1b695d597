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
//   input, and a message that names that line and column;
// - the input as the element of a streamed array, read with a projection (the members a
//   population reads), fails with JSONReader's error, or gives JSONReader's value without the
//   members the projection drops.

import Foundation

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
    fuzzProjectedStream(input)
    return 0
}

/// The keys the projected stream keeps: a few of json.dict's, one kept whole.
private let fuzzProjection = KeyProjection(["id": .descend, "a": .descend, "text": .whole, "": .descend])

/// Streams `[input]` under ``fuzzProjection`` and compares it with JSONReader's read.
private func fuzzProjectedStream(_ input: UnsafeRawBufferPointer) {
    let document = Data([UInt8(ascii: "[")] + Array(input) + [UInt8(ascii: "]")])
    let expected: Result<JSONValue, WebRecordError>
    do throws(WebRecordError) {
        expected = .success(try JSONReader().read(document))
    } catch {
        expected = .failure(error)
    }
    let reader = JSONStreamReader(data: document, keyPath: nil, batchByteLimit: 7)
    reader.project(onto: fuzzProjection)
    var elements: [JSONValue] = []
    do throws(WebRecordError) {
        guard case .streaming = try reader.start() else { fuzzFailure("a top-level array was not streamed") }
        while let batch = try reader.nextBatch() { elements += batch }
        _ = try reader.finish()
    } catch {
        guard case .failure(let whole) = expected else {
            fuzzFailure("projected stream refused a valid document: \(error)")
        }
        if error.offset != whole.offset || error.message != whole.message {
            fuzzFailure("projected stream failed otherwise than JSONReader: \(error) against \(whole)")
        }
        return
    }
    guard case .success(let value) = expected else { fuzzFailure("projected stream accepted an invalid document") }
    if .array(elements) != fuzzProjected(value) { fuzzFailure("projected stream gave another value") }
}

/// `value` without the members ``fuzzProjection`` drops (the reference the parser is held to).
private func fuzzProjected(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let elements): return .array(elements.map(fuzzProjected))
    case .object(let object):
        return .object(
            JSONObject(
                object.compactMap { member in
                    switch fuzzProjection.decision(forKey: member.key) {
                    case .skip: nil
                    case .whole: member
                    case .descend: (member.key, fuzzProjected(member.value))
                    }
                }))
    default: return value
    }
}
