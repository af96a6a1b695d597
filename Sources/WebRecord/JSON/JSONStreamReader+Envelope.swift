// The end of a streamed document: the bytes after the streamed array, read and validated with
// the bytes before it as one document in which the array is `[]`, and the repeated keys that
// a streamed array cannot follow.

extension JSONStreamReader {
    /// Reads the rest of the input, after the streamed array's `]`, and returns the document
    /// with the array emptied: the bytes before the array, `[]` and the bytes after it, read as
    /// one document (the bytes before were checked already, and the array's depth too).
    func readEnvelope() throws(WebRecordError) -> JSONValue {
        discard(progress.position)
        while !isAtEnd { try readMore() }
        var text = prefix
        prefix = []
        text.reserveCapacity(text.count &+ 2 &+ filled)
        text.append(UInt8(ascii: "["))
        text.append(UInt8(ascii: "]"))
        text.append(contentsOf: UnsafeBufferPointer(start: buffer, count: filled))
        let suffixStart = text.count &- filled
        let streamsFromKeyPath = streamDepth > 1
        let result = text.withUnsafeBufferPointer {
            envelope -> Result<(JSONValue, [RepeatedKey]), JSONParseFailure> in
            guard let base = envelope.baseAddress else { return .failure(JSONParseFailure(.emptyInput, at: 0)) }
            var parser = JSONParser(
                base, count: envelope.count, maximumDepth: maximumDepth, reportsRepeatedKeys: streamsFromKeyPath)
            do throws(JSONParseFailure) {
                let value = try parser.parseDocument()
                return .success((value, parser.repeatedKeys ?? []))
            } catch {
                return .failure(error)
            }
        }
        defer { releaseBuffer() }
        switch result {
        case .failure(let failure):
            throw locatedInEnvelope(failure, text: text, suffixStart: suffixStart)
        case .success(let (envelope, repeated)):
            if let found = firstRepeatOnPath(repeated, after: suffixStart) {
                let offset = found.offset &- suffixStart
                let (line, column) = lines.position(
                    of: offset, in: UnsafeBufferPointer(start: UnsafePointer(buffer), count: filled))
                var error = WebRecordError(
                    .invalidResponseFormat,
                    "the key '\(found.key)' appears twice in one object (line \(line), column \(column)); "
                        + "a response streamed from its key path cannot take the later value",
                    keyPath: keyPath)
                error.offset = bufferOffset &+ offset
                throw error
            }
            return envelope
        }
    }

    /// The first repeat, from `start` on in the envelope, of a key on the key path in one of
    /// the objects on it: of the key that leads from that object towards the streamed array.
    ///
    /// The parser names the object of a repeat by the keys leading to it; an object after the
    /// array reached by the same keys is not on the path, but a repeat of one of these keys,
    /// earlier, leads to it: the first repeat found is one in an object on the path.
    private func firstRepeatOnPath(_ repeated: [RepeatedKey], after start: Int) -> RepeatedKey? {
        guard streamDepth > 1 else { return nil }
        return repeated.filter { candidate in
            let depth = candidate.path.count
            guard candidate.offset >= start, depth < components.count, Array(candidate.key.utf8) == components[depth]
            else { return false }
            return zip(candidate.path, components).allSatisfy { Array($0.utf8) == $1 }
        }.min { $0.offset < $1.offset }
    }

    /// The error for a failure in the envelope `text`, placed in the whole input: the bytes
    /// from `suffixStart` on are the ones in the buffer, and the bytes before the array are the
    /// input's first.
    private func locatedInEnvelope(_ failure: JSONParseFailure, text: [UInt8], suffixStart: Int) -> WebRecordError {
        text.withUnsafeBufferPointer { envelope in
            var error = WebRecordError(failure, in: envelope)
            let offset = min(max(failure.offset, 0), envelope.count)
            if offset >= suffixStart {
                let local = offset &- suffixStart
                let (line, column) = lines.position(
                    of: local, in: UnsafeBufferPointer(start: UnsafePointer(buffer), count: filled))
                error.offset = bufferOffset &+ local
                error.line = line
                error.column = column
            } else {
                // Not expected: the bytes before the array were read already. Placed in them.
                let before = min(offset, suffixStart &- 2)
                var counter = JSONLineCounter(UnsafeBufferPointer(rebasing: envelope[0..<(suffixStart &- 2)]))
                let (line, column) = counter.position(of: before)
                error.offset = before
                error.line = line
                error.column = column
            }
            return error
        }
    }
}
