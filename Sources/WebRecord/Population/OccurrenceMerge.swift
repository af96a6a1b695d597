/// Merges a later occurrence of a record into the dictionary of its earlier ones (DESIGN §3.7).
///
/// The merge is per attribute, after key paths are read: each attribute's value is the one its
/// key paths find in each occurrence, and the later occurrence's value replaces the earlier one
/// only when it is present, and valid or the earlier one is not. Everything else (the objects
/// the key paths pass through, relationships, keys no attribute reads) is merged key by key at
/// every depth, so that a short copy of a record nested under the same key as the full one
/// (Jira's `fields`) fills what it gives and hides nothing the full copy gave.
///
/// The merged dictionary is then what the marshaler reads: each attribute's key paths find in
/// it the value the merge chose, at the key path it came from. Where two attributes' key paths
/// meet (``Representation/sharedAttributes``), one dictionary cannot hold a value chosen for
/// each: those values are kept beside it (``ProtoRecord/sharedValues``) and read there.
enum OccurrenceMerge {
    /// The value the merge chose for one attribute, and where it is placed.
    struct Choice {
        let attribute: Representation.MappedAttribute
        let found: Representation.Found
        /// Whether the later occurrence gave the value: its own, or the same value as the
        /// earlier one given again. The occurrence that gave it last is the one it is timed by
        /// (``ProtoRecord/attributeTimes``).
        var isLater = false
    }

    /// `earlier` with the members of `later` merged in at every depth: two objects under one key
    /// are merged, any other value of `later` replaces the earlier one.
    static func mergedObjects(_ earlier: JSONObject, _ later: JSONObject) -> JSONObject {
        var merged = earlier
        for (key, value) in later {
            if case .object(let laterObject) = value, case .object(let earlierObject)? = merged[key] {
                merged[key] = .object(mergedObjects(earlierObject, laterObject))
            } else {
                merged[key] = value
            }
        }
        return merged
    }

    /// Makes each attribute of `choices` read its chosen value in `dictionary`: the value placed
    /// at its key path, and the attribute's candidate key paths before that one removed, so that
    /// the first candidate present is the chosen one (DESIGN §3.9). A candidate that cannot be
    /// removed (an element of a list, which a `null` would not leave absent) holds the chosen
    /// value instead.
    ///
    /// Placing one attribute's value cannot disturb another's unless two attributes share a key
    /// path; the placements are checked again a few times for that case.
    static func place(_ choices: [Choice], in dictionary: inout JSONObject) {
        var pending = choices
        var rounds = 0
        while !pending.isEmpty, rounds < 3 {
            rounds += 1
            for choice in pending {
                let attribute = choice.attribute
                for path in attribute.keyPaths {
                    if path === choice.found.path { break }
                    guard path.value(in: dictionary) != nil else { continue }
                    remove(at: path.steps[...], in: &dictionary)
                    if let left = path.value(in: dictionary), left != choice.found.value {
                        _ = set(choice.found.value, at: path.steps[...], in: &dictionary)
                    }
                }
                if choice.found.path.value(in: dictionary) != choice.found.value {
                    _ = set(choice.found.value, at: choice.found.path.steps[...], in: &dictionary)
                }
            }
            pending = pending.filter { choice in
                guard let found = choice.attribute.value(in: dictionary) else { return true }
                return found.value != choice.found.value
            }
        }
    }

    // MARK: - Key paths

    /// Sets `value` at `steps` in `object`, making an object where the path meets a null or a
    /// scalar, and lengthening with nulls an array the path leads past the end of (a later
    /// occurrence's shorter list leaves the earlier element's value absent, so it stays).
    private static func set(
        _ value: JSONValue, at steps: ArraySlice<(key: String, index: Int?)>, in object: inout JSONObject
    ) -> Bool {
        guard let step = steps.first else { return false }
        let rest = steps.dropFirst()
        if rest.isEmpty {
            object[step.key] = value
            return true
        }
        var child = object[step.key] ?? .null
        // The member is replaced below: dropping it here leaves `child` its storage's one owner.
        object[step.key] = .null
        let done = set(value, at: rest, in: &child)
        object[step.key] = child
        return done
    }

    /// Sets `value` at `steps` in `target` (an object, an array, or something an object replaces).
    private static func set(
        _ value: JSONValue, at steps: ArraySlice<(key: String, index: Int?)>, in target: inout JSONValue
    ) -> Bool {
        switch target {
        case .object(var object):
            target = .null
            let done = set(value, at: steps, in: &object)
            target = .object(object)
            return done
        case .array(var array):
            guard let step = steps.first, let index = step.index else { return false }
            target = .null
            if index >= array.count { array += repeatElement(.null, count: index + 1 - array.count) }
            let rest = steps.dropFirst()
            var done = true
            if rest.isEmpty {
                array[index] = value
            } else {
                done = set(value, at: rest, in: &array[index])
            }
            target = .array(array)
            return done
        default:
            var object = JSONObject()
            guard set(value, at: steps, in: &object) else { return false }
            target = .object(object)
            return true
        }
    }

    /// Removes the member at `steps` in `object`, when there is one.
    private static func remove(at steps: ArraySlice<(key: String, index: Int?)>, in object: inout JSONObject) {
        guard let step = steps.first else { return }
        let rest = steps.dropFirst()
        if rest.isEmpty {
            object[step.key] = nil
            return
        }
        guard var child = object[step.key] else { return }
        object[step.key] = .null
        remove(at: rest, in: &child)
        object[step.key] = child
    }

    /// Removes the member at `steps` in `target`, when there is one.
    private static func remove(at steps: ArraySlice<(key: String, index: Int?)>, in target: inout JSONValue) {
        switch target {
        case .object(var object):
            target = .null
            remove(at: steps, in: &object)
            target = .object(object)
        case .array(var array):
            guard let step = steps.first, let index = step.index, index < array.count else { return }
            let rest = steps.dropFirst()
            // The last step of a path into an array names an element: it becomes absent as a null
            // cannot say, so the path is left as it is.
            guard !rest.isEmpty else { return }
            target = .null
            remove(at: rest, in: &array[index])
            target = .array(array)
        default:
            return
        }
    }
}
