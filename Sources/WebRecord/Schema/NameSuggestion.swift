/// Finds the closest known name to a misspelt one, for "did you mean …?" messages.
package enum NameSuggestion {
    /// The candidate nearest to `name` by edit distance, if it is near enough to be a likely typo.
    package static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        let lowered = Array(name.lowercased().utf8)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, Array(candidate.lowercased().utf8))
            // Ties go to the alphabetically first candidate, so a hint never depends on the
            // order of a dictionary's keys.
            if let current = best,
                distance > current.distance || (distance == current.distance && candidate >= current.name)
            {
                continue
            }
            best = (candidate, distance)
        }
        guard let best else { return nil }
        let limit = max(2, lowered.count / 3)
        return best.distance <= limit ? best.name : nil
    }

    /// " (did you mean 'x'?)" or "".
    package static func hint(for name: String, in candidates: some Sequence<String>) -> String {
        closest(to: name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
