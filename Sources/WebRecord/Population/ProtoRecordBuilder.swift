/// Builds the proto-record graph of a response (pipeline steps 1 and 2).
///
/// It walks each top-level dictionary and everything nested in it, picks sub-entities,
/// runs pre-population and primary-key injection, and merges duplicates: dictionaries with
/// the same primary key, or the same owner for records identified by their owner, become one
/// proto-record (DESIGN §3.5–3.7, §3.11–3.13).
final class ProtoRecordBuilder {
    let store: any RecordStorage
    let schema: Schema
    let options: PopulationOptions
    let coercion: ValueCoercion
    let debugger: Debugger
    let selector: SubentitySelector
    let representations: RepresentationSet

    // Unchecked exclusivity on the three collections below: a builder runs on one thread and
    // no two accesses to them overlap; the dynamic checks showed in profiles, once per record.

    /// The proto-records identified by key, by hierarchy root (its position in the set of
    /// representations) and normalized key.
    @exclusivity(unchecked) private var byKey: [[KeyValue: ProtoRecord]]
    /// The members the references of the link being read named before any occurrence stated
    /// their entity, with the response's verdict then (``ProtoRecord/Link/judged``).
    private var judgedMembers: [(ProtoRecord, Bool)] = []
    /// The discriminator values naming no sub-entity already warned of (entity, key, value).
    private var warnedDiscriminatorValues: Set<String> = []
    /// For each proto-record whose occurrences with data named another entity than the ones
    /// before them, the entity it had before the first such occurrence, and whether it was
    /// stated then: where a streamed record carried from an earlier batch meets this batch's
    /// occurrences (``mergeEarlier(_:shared:as:stated:into:)``), as one batch meets them in turn.
    private var entityBeforeChange: [ProtoRecord: (representation: Representation, stated: Bool)] = [:]
    /// The proto-records identified by their owner.
    @exclusivity(unchecked) private var byOwner: [OwnerKey: ProtoRecord] = [:]
    /// For each proto-record a one-to-one named, the records that named it and the relationship
    /// (``Representation/MappedRelationship/id``), in the order given (a record once each time).
    /// What an object without a key related there is, applied in turn, depends on what their
    /// links hold now (``relatedInTurn(to:through:)``).
    ///
    /// Most records are named by one record only (a user's cover image, by its user, on each of
    /// the user's posts): the first naming is kept alone, with no list to allocate, and only a
    /// record named otherwise too gets one (``otherOneToOneNamings``).
    ///
    /// Kept by the named record's position in the arena (``ProtoRecord/index``): no hashing.
    private var oneToOneNamings: [OneToOneNaming?] = []
    /// The namings after the first of the records named more than one way.
    private var otherOneToOneNamings: [ProtoRecord: [OneToOneNaming]] = [:]

    /// A record that named another through a one-to-one, and the relationship.
    private struct OneToOneNaming: Equatable {
        let by: ProtoRecord
        let relationship: Int
    }
    /// For each one-to-one (by ``Representation/MappedRelationship/id``), the latest occurrence
    /// that set it (to a record or `null`).
    private var oneToOneSetAt: [Int: Int] = [:]
    /// Every proto-record, in the order first met.
    @exclusivity(unchecked) private(set) var protoRecords: [ProtoRecord] = []
    /// Where the proto-records' fields are: freed with the graph (``releaseGraph()``).
    let arena: ProtoRecordArena
    /// The top-level values skipped because they could not be identified (DESIGN §3.5): no
    /// primary key after injection, or one that is not a valid key. The first is kept for messages.
    private(set) var unidentifiedTopLevel: (count: Int, first: JSONValue?, firstIndex: Int) = (0, nil, 0)
    /// The position of the top-level value being built, for messages.
    private var topLevelIndex = 0
    /// How many merges have changed a record's dictionary so far.
    private var changes = 0
    /// How many record objects the builder has met so far.
    private var occurrences = 0
    /// The first occurrence of a compound response's included records (``startIncluded()``);
    /// `Int.max` before them, or without them.
    private(set) var includedFrom = Int.max

    /// Marks where the included records of a compound response begin.
    func startIncluded() {
        includedFrom = min(includedFrom, occurrences + 1)
    }
    /// The top-level dictionaries of an abstract entity skipped because no sub-entity matched.
    private(set) var unmappedTopLevel = 0
    /// What earlier batches of a streamed response gave the records that may be the parents of
    /// primary-key injections (nil for a whole response, which is one batch, or without an
    /// injection).
    var earlierParents: InjectionParents?
    /// A parent of a primary-key injection whose dictionary an earlier batch could not keep:
    /// the injection this batch gives it may differ from one batch's, and the response is read
    /// again whole (``InjectionParents/capacity``).
    private(set) var unkeptParent: ProtoRecord?

    /// An owner identity: the owner and its relationship (``Representation/MappedRelationship/id``).
    private struct OwnerKey: Hashable {
        let owner: ProtoRecord
        let relationship: Int
    }

    init(
        store: any RecordStorage, options: PopulationOptions, coercion: ValueCoercion,
        representations: RepresentationSet,
        debugger: Debugger, arena: ProtoRecordArena = ProtoRecordArena()
    ) {
        self.arena = arena
        self.store = store
        self.schema = store.schema
        self.options = options
        self.coercion = coercion
        self.representations = representations
        self.debugger = debugger
        self.selector = SubentitySelector(schema: store.schema, store: store)
        self.byKey = Array(repeating: [:], count: representations.all.count)
    }

    /// The top-level proto-records for `values`, in response order, without repeats.
    ///
    /// `progress`, when given, hears how many are built every ``progressStride`` values.
    /// `indexOffset` is the position of the first value in the whole list, for messages: a
    /// streamed response builds its records a batch at a time.
    func build(
        _ values: [JSONValue], entity: Entity, keyPath: String?, progress: ProgressReporter? = nil,
        indexOffset: Int = 0
    ) throws(WebRecordError) -> [ProtoRecord] {
        let representation = try representations.representation(of: entity)
        protoRecords.reserveCapacity(values.count * 2)
        var results: [ProtoRecord] = []
        results.reserveCapacity(values.count)
        var seen = Set<ProtoRecord>()
        seen.reserveCapacity(values.count)
        for (position, value) in values.enumerated() {
            let index = indexOffset + position
            topLevelIndex = index
            if let progress, index & (Self.progressStride - 1) == 0, index > 0 {
                progress.populated(indexOffset == 0 ? results.count : index)
            }
            let proto: ProtoRecord?
            switch value {
            case .object(let dictionary):
                proto = try self.proto(for: dictionary, representation: representation, parent: nil, via: nil, depth: 1)
            case .null:
                // A null where a record belongs is a record that cannot be identified: reported,
                // and never silently left out of a list that orphan deletion would trust.
                debugger.record(
                    .missingPrimaryKey(
                        entity: entity.name, keyPath: keyPath.map { "\($0).\(index)" } ?? "\(index)", value: .null))
                noteUnidentifiedTopLevel(.null)
                proto = nil
            default:
                proto = reference(
                    value, to: representation, parent: nil, keyPath: keyPath.map { "\($0).\(index)" } ?? "\(index)")
                if proto == nil { noteUnidentifiedTopLevel(value) }
            }
            if let proto, seen.insert(proto).inserted {
                results.append(proto)
            }
        }
        return results
    }

    /// How often ``build(_:entity:keyPath:progress:)`` reports, in top-level values: a power of
    /// two, few enough that the clock it reads costs nothing measurable.
    static let progressStride = 64

    /// Breaks the references between proto-records (members and owners point both ways), so
    /// that the graph, and the response values its dictionaries hold, are freed once the
    /// population ends.
    func releaseGraph() {
        protoRecords = []
        byKey = []
        byOwner = [:]
        arena.removeAll()
    }

    // MARK: - Dictionaries

    private func proto(
        for original: JSONObject, representation declared: Representation, parent: ProtoRecord?,
        via relationship: Representation.MappedRelationship?, depth: Int
    ) throws(WebRecordError) -> ProtoRecord? {
        if depth > options.maximumRecordDepth {
            throw WebRecordError(
                .invalidResponseFormat,
                "records nest deeper than \(options.maximumRecordDepth) levels",
                entity: parent?.entity.name ?? declared.name, property: relationship?.name)
        }
        var representation = declared
        var entityIsStated = false
        if declared.isDiscriminated {
            guard let choice = selector.choice(for: original, startingAt: declared.entity) else {
                debugger.record(
                    WebRecordError(
                        .invalidEntityDescription,
                        "the record names an entity that is not a kind of \(declared.name); it was skipped",
                        isFatal: false, entity: declared.name, property: relationship?.name, value: .object(original)))
                if parent == nil, relationship == nil { unmappedTopLevel += 1 }
                return nil
            }
            representation = try representations.representation(of: choice.entity)
            entityIsStated = choice.isStated
            if let unmapped = choice.unmapped { noteUnmappedDiscriminator(unmapped, of: choice.entity) }
        }
        if representation.isAbstract {
            debugger.record(
                WebRecordError(
                    .invalidEntityDescription,
                    "\(representation.entity.name) is abstract and no sub-entity matched the record; it was skipped",
                    isFatal: false, entity: representation.entity.name, value: .object(original)))
            if parent == nil, relationship == nil { unmappedTopLevel += 1 }
            return nil
        }
        var dictionary = original
        options.prePopulation?(representation.entity, &dictionary)

        // Identity: the primary key, injected if missing, or the owner.
        var rawKey: JSONValue?
        var keyWasInjected = false
        var normalized: KeyValue?
        var owner: ProtoRecord.Owner?
        var ownerProtoFromDictionary: ProtoRecord?
        // Whether the record names its owner itself, other than nested under it (below).
        var namedApart = false

        if !representation.keyAttributes.isEmpty {
            rawKey = representation.rawPrimaryKey(in: dictionary)
            if rawKey == nil, let injection = options.primaryKeyInjection {
                rawKey = injection(representation.entity, dictionary, parent.map(parentRecord)).flatMap {
                    $0.isNull ? nil : $0
                }
                keyWasInjected = rawKey != nil
            }
            if let raw = rawKey {
                normalized = representation.normalizedKey(raw, coercion: coercion)
                if normalized == nil {
                    debugger.record(
                        .typeMismatch(
                            entity: representation.entity.name,
                            property: representation.entity.primaryKey?.description ?? "",
                            keyPath: keyWasInjected ? nil : representation.primaryKeyPath(in: dictionary), value: raw,
                            expected: "\(Self.keyDescription(representation)) primary key"))
                    rawKey = nil
                }
            }
        } else if let keyRelationship = representation.keyRelationship {
            if let parent, let relationship, relationship.inverse == keyRelationship.name {
                owner = ProtoRecord.Owner(proto: parent, relationship: relationship)
                if let found = keyRelationship.value(in: dictionary), !found.value.isNull {
                    // The record also names its owner: it must be the one it is nested in.
                    if let named = ownerKey(found.value, of: keyRelationship), let parentKey = parent.normalizedKey,
                        named != parentKey
                    {
                        debugger.record(
                            WebRecordError(
                                .invalidResponseFormat,
                                "nested under \(parent) but names another owner, \(WebRecordError.excerpt(of: found.value)); the record is skipped",
                                isFatal: false, entity: representation.entity.name, property: keyRelationship.name,
                                keyPath: found.keyPath, value: .object(original)))
                        return nil
                    }
                    ownerProtoFromDictionary = parent
                }
            } else if let found = keyRelationship.value(in: dictionary), !found.value.isNull {
                namedApart = true
                ownerProtoFromDictionary = try related(
                    found.value, relationship: keyRelationship, parent: nil, depth: depth, keyPath: found.keyPath
                ).members.first
            } else if let injected = options.primaryKeyInjection?(
                representation.entity, dictionary, parent.map(parentRecord)), !injected.isNull
            {
                namedApart = true
                ownerProtoFromDictionary = try related(
                    injected, relationship: keyRelationship, parent: nil, depth: depth,
                    keyPath: keyPath(keyRelationship.property)
                ).members.first
            }
            if let ownerProto = ownerProtoFromDictionary {
                if let inverseName = keyRelationship.inverse,
                    let inverse = ownerProto.representation.relationship(named: inverseName)
                {
                    owner = ProtoRecord.Owner(proto: ownerProto, relationship: inverse)
                } else {
                    owner = ProtoRecord.Owner(proto: ownerProto, relationship: keyRelationship)
                }
            }
        }
        // What an earlier occurrence of the parent related there, for a nested object without a
        // key: that record, or (set to null) none, so that a new record is made.
        var relatedEarlier: ProtoRecord?
        var isNewThere = false
        // An object without a key that an earlier occurrence of the parent related there, which
        // may be the record the store relates, when a one-to-one was set since: made apart, so
        // that the resolver finds whether another record took that stored record in between.
        var apartFromEarlier = false
        if normalized == nil, owner == nil, let parent, let relationship, !relationship.isToMany,
            !representation.keyAttributes.contains(where: { $0.value(in: dictionary) != nil })
        {
            // DESIGN §3.6: a nested object without a key, reached through a to-one, is the record
            // already related there. Only without one: a key that is null or invalid names no
            // record, and must not be taken for the one related there.
            owner = ProtoRecord.Owner(proto: parent, relationship: relationship)
            // Related there is what the response has related there so far, as when the
            // occurrences are applied in turn (decision 6).
            switch relatedInTurn(to: parent, through: relationship) {
            case .record(let member):
                relatedEarlier = member
                if member.normalizedKey == nil, !member.isNewThere, member.owner?.proto == parent,
                    member.owner?.relationship.id == relationship.id, relationship.isOneToOne
                {
                    var since: Int?
                    parent.withLink(relationship.id) { _, givenAt in since = givenAt }
                    if let since, isOneToOneSet(relationship, since: since) {
                        relatedEarlier = nil
                        apartFromEarlier = true
                    }
                }
            case .nothing: isNewThere = true
            case .stored: break
            }
        }
        if normalized == nil, owner == nil, representation.hasPrimaryKey {
            // DESIGN §3.5: a keyed record that cannot be identified is not stored (and neither is
            // what is nested in it): a blank row would be a new record on every import.
            debugger.record(
                .missingPrimaryKey(
                    entity: representation.entity.name, keyPath: keyPath(representation.entity),
                    value: .object(original),
                    where: parent.map { "in \($0).\(relationship?.name ?? "")" }
                        ?? (relationship == nil && depth == 1 && includedFrom == .max
                            ? "at index \(topLevelIndex) of the list" : nil)))
            if parent == nil, relationship == nil { noteUnidentifiedTopLevel(.object(original)) }
            noteNamed(in: dictionary, representation: representation, depth: depth)
            return nil
        }

        // Merge with an earlier occurrence, or make a new proto-record.
        let ownerKey =
            normalized == nil
            ? owner.map { OwnerKey(owner: $0.proto, relationship: $0.relationship.id) } : nil
        let earlier: ProtoRecord?
        if let normalized {
            earlier = byKey[representation.keyScopeIndex][normalized]
        } else if let relatedEarlier, relatedEarlier.representation.rootIndex == representation.rootIndex {
            earlier = relatedEarlier
        } else if isNewThere || apartFromEarlier {
            earlier = nil
        } else if let ownerKey {
            earlier = byOwner[ownerKey]
        } else {
            earlier = nil
        }
        let proto: ProtoRecord
        occurrences += 1
        if let earlier {
            let givenBefore = earlier.lastGiven
            earlier.lastGiven = occurrences
            if namedApart { earlier.isNamedApartFromOwner = true }
            // The same record repeated as is (a user on each of their posts): its nested records
            // were merged and its relationships set from these very values already, unless an
            // occurrence in between changed one of them: then this later occurrence's values
            // win again (DESIGN §3.7), and its nested records are merged once more.
            let outcome = merge(
                dictionary, into: earlier, as: representation, stated: entityIsStated,
                times: (
                    earlier: { earlier.attributeTimes.isEmpty ? givenBefore : earlier.attributeTime(column: $0) },
                    later: { _ in self.occurrences }
                ))
            if earlier.completedAt == .max, isComplete(earlier) { earlier.completedAt = occurrences }
            if outcome == .identical,
                earlier.linkedAfterChanges == changes
            {
                // It gives its links again: of two records that claim one member, the one named
                // last ends with it (ResponsePopulation.wireInOrderGiven).
                earlier.regiveLinks()
                earlier.forEachOneToOneLink { relationship, members, givenAt in
                    noteOneToOne(relationship, members: members, givenAt: givenAt, of: earlier)
                }
                return earlier
            }
            proto = earlier
        } else {
            proto = arena.make(
                representation: representation, dictionary: dictionary, parent: parent, isReference: false)
            proto.lastGiven = occurrences
            proto.firstGiven = occurrences
            if !representation.requiredAttributes.isEmpty, !isComplete(proto) { proto.completedAt = .max }
            proto.isNamedApartFromOwner = namedApart
            proto.normalizedKey = normalized
            proto.primaryKeyValue = rawKey
            if let normalized {
                byKey[representation.keyScopeIndex][normalized] = proto
            } else if let ownerKey {
                proto.owner = owner
                proto.isNewThere = isNewThere
                byOwner[ownerKey] = proto
            }
            protoRecords.append(proto)
            if let rawKey, keyWasInjected {
                // An injected key is written into the dictionary so the key attribute is stored.
                // At the first of the key's candidate key paths, which a `null` given there
                // would otherwise win over.
                let parts = representation.keyAttributes.count == 1 ? [rawKey] : (rawKey.arrayValue ?? [])
                for (mapped, part) in zip(representation.keyAttributes, parts) {
                    guard let first = mapped.keyPaths.first else {
                        proto.dictionary[mapped.name] = part
                        continue
                    }
                    OccurrenceMerge.place(
                        [
                            OccurrenceMerge.Choice(
                                attribute: mapped, found: Representation.Found(value: part, path: first))
                        ],
                        in: &proto.dictionary)
                }
            }
        }

        if entityIsStated { proto.entityIsStated = true }
        try linkRelationships(
            of: proto, in: dictionary, representation: representation, owner: ownerProtoFromDictionary, depth: depth)
        proto.linkedAfterChanges = changes
        return proto
    }

    /// Warns, once per discriminator key and value in the response, of a value that names no
    /// sub-entity: the records that give it are stored as `entity` (DESIGN §3.13).
    private func noteUnmappedDiscriminator(_ unmapped: (key: String, value: JSONValue), of entity: Entity) {
        let text = unmapped.value.stringValue ?? unmapped.value.serialized()
        guard warnedDiscriminatorValues.insert("\(entity.name)\u{0}\(unmapped.key)\u{0}\(text)").inserted else {
            return
        }
        let outcome =
            entity.isAbstract
            ? "\(entity.name) is abstract, so the records that give it are skipped"
            : "the records that give it are stored as \(entity.name), and a stored sub-entity's values are cleared"
        let warning = WebRecordError(
            .invalidEntityDescription,
            "\(unmapped.key) is \(WebRecordError.excerpt(of: unmapped.value)), which names no sub-entity of \(entity.name); \(outcome)",
            isFatal: false, entity: entity.name, keyPath: unmapped.key, value: unmapped.value)
        // A streamed response builds each batch apart: once in the whole response.
        debugger.recordOnce(warning)
    }

    /// The normalized key of the owner a key relationship's value names (a key, or an object
    /// holding one), without making a proto-record for it; nil when it names none.
    private func ownerKey(_ value: JSONValue, of relationship: Representation.MappedRelationship) -> KeyValue? {
        guard let index = relationship.destination else { return nil }
        let destination = representations.all[index]
        switch value {
        case .object(let object):
            return destination.rawPrimaryKey(in: object).flatMap { destination.normalizedKey($0, coercion: coercion) }
        case .array, .null:
            return nil
        default:
            return destination.normalizedKey(value, coercion: coercion)
        }
    }

    private func noteUnidentifiedTopLevel(_ value: JSONValue) {
        if unidentifiedTopLevel.count == 0 {
            unidentifiedTopLevel = (1, value, topLevelIndex)
        } else {
            unidentifiedTopLevel.count += 1
        }
    }

    /// Sets the relationships present in this occurrence of `proto`'s dictionary, building the
    /// proto-records they name.
    private func linkRelationships(
        of proto: ProtoRecord, in dictionary: JSONObject, only: Representation.MappedRelationship? = nil,
        representation: Representation, owner: ProtoRecord?, depth: Int
    ) throws(WebRecordError) {
        for mapped in representation.relationships where only == nil || only === mapped {
            guard let found = mapped.value(in: dictionary) else { continue }
            // A to-many merged by union adds each occurrence's members to the earlier ones'.
            let unites =
                mapped.isToMany && proto.hasLink(mapped)
                && options.mergePolicy(of: mapped.property, on: representation.entity) == .union
            if found.value.isNull {
                // Under union, null removes no member (DESIGN §3.11), an earlier occurrence's either.
                if unites { continue }
                if mapped === representation.keyRelationship {
                    // A key is never cleared: the record stays its owner's.
                    debugger.record(
                        .typeMismatch(
                            entity: representation.entity.name, property: mapped.name, keyPath: found.keyPath,
                            value: .null,
                            expected: "the owner that identifies the record (a key is never cleared)"))
                    continue
                }
                proto.setLink(mapped, members: [])
                proto.clearedRelationships.insert(mapped.name)
                if mapped.isOneToOne { oneToOneSetAt[mapped.id] = proto.lastGiven }
                continue
            }
            if let owner, mapped === representation.keyRelationship {
                proto.setLink(mapped, member: owner)
            } else if case .object(let nested) = found.value, let index = mapped.destination {
                // The common case, a nested record: no array unless the link changes. A nested
                // record that was refused (reported where it was) leaves the link as it was.
                guard
                    let member = try self.proto(
                        for: nested, representation: representations.all[index], parent: proto, via: mapped,
                        depth: depth + 1)
                else { continue }
                if unites {
                    proto.uniteLink(mapped, members: [member])
                } else {
                    proto.setLink(mapped, member: member)
                }
            } else {
                let outer = judgedMembers
                judgedMembers = []
                let named = try related(
                    found.value, relationship: mapped, parent: proto, depth: depth + 1, keyPath: found.keyPath)
                let judged = judgedMembers
                judgedMembers = outer
                var members = named.members
                // A rejected value never removes what is stored: nothing valid keeps a to-one as
                // it was; a to-many with an element rejected adds its valid members, if any, and
                // removes none (the marshaler says so where the merge rule was `replace`). With
                // nothing valid, an earlier occurrence's link stands.
                if named.rejected > 0, members.isEmpty, !mapped.isToMany || proto.hasLink(mapped) { continue }
                if !mapped.isToMany {
                    guard let first = members.first else {
                        debugger.record(
                            .typeMismatch(
                                entity: representation.entity.name, property: mapped.name, keyPath: found.keyPath,
                                value: found.value,
                                expected: "an object, a primary-key value or null (an empty array names no record)"))
                        continue
                    }
                    members = [first]
                }
                // A list with an element refused adds to an earlier occurrence's, whatever the
                // merge rule: applied after it, it would remove none of its members.
                if unites || (named.rejected > 0 && mapped.isToMany && proto.hasLink(mapped)) {
                    proto.uniteLink(mapped, members: members, partial: named.rejected > 0)
                } else {
                    proto.setLink(mapped, members: members, partial: named.rejected > 0)
                }
                if !judged.isEmpty { proto.noteJudged(mapped, judged) }
            }
            if !proto.clearedRelationships.isEmpty {
                proto.clearedRelationships.remove(mapped.name)
            }
            if mapped.isOneToOne {
                proto.withLink(mapped.id) { members, givenAt in
                    noteOneToOne(mapped.id, members: members, givenAt: givenAt, of: proto)
                }
            }
        }
    }

    /// Notes that `proto` names `members` through the one-to-one `relationship` (its
    /// ``Representation/MappedRelationship/id``), in the occurrence `givenAt`.
    private func noteOneToOne(_ relationship: Int, members: [ProtoRecord], givenAt: Int, of proto: ProtoRecord) {
        if oneToOneSetAt[relationship].map({ $0 < givenAt }) ?? true { oneToOneSetAt[relationship] = givenAt }
        for member in members {
            let naming = OneToOneNaming(by: proto, relationship: relationship)
            if member.index >= oneToOneNamings.count {
                // Grown to the batch's records so far, rather than a record at a time.
                oneToOneNamings.append(
                    contentsOf: repeatElement(
                        nil, count: max(protoRecords.count, member.index + 1) - oneToOneNamings.count))
            }
            guard let first = oneToOneNamings[member.index] else {
                oneToOneNamings[member.index] = naming
                continue
            }
            if first == naming || otherOneToOneNamings[member]?.contains(naming) == true { continue }
            otherOneToOneNamings[member, default: []].append(naming)
        }
    }

    /// Calls `body` with each record that named `member` through a one-to-one, each once, in the
    /// order first given.
    private func forEachNaming(of member: ProtoRecord, _ body: (OneToOneNaming) -> Void) {
        guard oneToOneNamings.indices.contains(member.index), let first = oneToOneNamings[member.index] else { return }
        body(first)
        guard let others = otherOneToOneNamings[member] else { return }
        for naming in others { body(naming) }
    }

    /// Whether `relationship`, a one-to-one, or its inverse was set by an occurrence after `since`.
    private func isOneToOneSet(_ relationship: Representation.MappedRelationship, since: Int) -> Bool {
        if oneToOneSetAt[relationship.id] ?? 0 > since { return true }
        guard let inverse = relationship.inverseID(in: representations) else { return false }
        return oneToOneSetAt[inverse] ?? 0 > since
    }

    /// What a to-one of a record relates, for an object without a key reached through it.
    private enum RelatedThere {
        /// What the store relates: the response has related nothing there yet.
        case stored
        /// Nothing: the object is a new record.
        case nothing
        /// That record.
        case record(ProtoRecord)
    }

    /// What `relationship`, a to-one of `parent`, relates as the occurrences of the response so
    /// far, applied in turn, leave it (decision 6): what the parent's latest occurrence that gave
    /// it set it to (a record, or nothing after a `null`), or, when none did, what the store
    /// relates. Through a one-to-one, what other records name after that counts too, each as its
    /// latest occurrence so far names it (as one batch wires only a link's latest occurrence):
    /// another record that names the member through the relationship, or the member that names
    /// another record or `null` through the inverse, takes the member from the parent, and
    /// nothing is related there any more; a record that names the parent through the inverse
    /// takes the parent, and is then the record related there (the member so given back too).
    private func relatedInTurn(
        to parent: ProtoRecord, through relationship: Representation.MappedRelationship
    ) -> RelatedThere {
        var related = RelatedThere.stored
        var since = 0
        parent.withLink(relationship.id) { members, givenAt in
            if members.count == 1 {
                related = .record(members[0])
            } else if members.isEmpty {
                related = .nothing
            }
            since = givenAt
        }
        guard relationship.isOneToOne else { return related }
        let inverse = relationship.inverseID(in: representations)
        // The namings after `since`, earliest first, each applied in turn.
        while true {
            var next: (at: Int, related: RelatedThere)?
            func consider(_ at: Int, _ then: RelatedThere) {
                if at > since, next.map({ at < $0.at }) ?? true { next = (at, then) }
            }
            if let inverse {
                forEachNaming(of: parent) { naming in
                    guard naming.relationship == inverse else { return }
                    naming.by.withLink(inverse) { members, givenAt in
                        if members.count == 1, members[0] == parent { consider(givenAt, .record(naming.by)) }
                    }
                }
            }
            if case .record(let member) = related {
                forEachNaming(of: member) { naming in
                    guard naming.relationship == relationship.id, naming.by != parent else { return }
                    naming.by.withLink(relationship.id) { members, givenAt in
                        if members.count == 1, members[0] == member { consider(givenAt, .nothing) }
                    }
                }
                if let inverse {
                    member.withLink(inverse) { members, givenAt in
                        consider(givenAt, members.count == 1 && members[0] == parent ? related : .nothing)
                    }
                }
            }
            guard let next else { return related }
            (since, related) = (next.at, next.related)
        }
    }

    /// What a relationship's value names: the proto-records, and how many elements were
    /// rejected (each reported where it was).
    private struct Named {
        var members: [ProtoRecord] = []
        var rejected = 0
    }

    /// The proto-records a relationship's value names: nested objects, arrays of them, or references.
    private func related(
        _ value: JSONValue, relationship mapped: Representation.MappedRelationship, parent: ProtoRecord?, depth: Int,
        keyPath: String
    ) throws(WebRecordError) -> Named {
        guard let index = mapped.destination else { return Named() }
        let destination = representations.all[index]
        switch value {
        case .null:
            return Named()
        case .object(let dictionary):
            let member = try proto(
                for: dictionary, representation: destination, parent: parent, via: mapped, depth: depth)
            return member.map { Named(members: [$0]) } ?? Named(rejected: 1)
        case .array(let elements):
            var named = Named()
            var seen = Set<ProtoRecord>()
            for (index, element) in elements.enumerated() {
                let member: ProtoRecord?
                switch element {
                case .object(let dictionary):
                    member = try proto(
                        for: dictionary, representation: destination, parent: parent, via: mapped, depth: depth)
                case .null:
                    debugger.record(
                        .typeMismatch(
                            entity: mapped.property.entityName, property: mapped.property.name,
                            keyPath: "\(keyPath).\(index)",
                            value: element, expected: "an object or a primary-key value (a null member is skipped)"))
                    member = nil
                case .array:
                    debugger.record(
                        .typeMismatch(
                            entity: mapped.property.entityName, property: mapped.property.name,
                            keyPath: "\(keyPath).\(index)",
                            value: element, expected: "an object or a primary-key value"))
                    member = nil
                default:
                    member = reference(
                        element, to: destination, parent: parent, keyPath: "\(keyPath).\(index)", via: mapped)
                }
                guard let member else {
                    named.rejected += 1
                    continue
                }
                if seen.insert(member).inserted { named.members.append(member) }
            }
            return named
        default:
            let member = reference(value, to: destination, parent: parent, keyPath: keyPath, via: mapped)
            return member.map { Named(members: [$0]) } ?? Named(rejected: 1)
        }
    }

    /// `an integer`, or `a string+integer` for a composite key, for messages.
    private static func keyDescription(_ representation: Representation) -> String {
        let types = representation.keyAttributes.map(\.property.type)
        guard let first = types.first else { return "a" }
        return first.withArticle + types.dropFirst().map { "+" + $0.rawValue }.joined()
    }

    /// A proto-record for a reference by primary key (DESIGN §3.11): the record with that key,
    /// a stub until its data arrives.
    private func reference(
        _ value: JSONValue, to representation: Representation, parent: ProtoRecord?, keyPath: String,
        via relationship: Representation.MappedRelationship? = nil
    ) -> ProtoRecord? {
        let entity = representation.entity
        guard !representation.keyAttributes.isEmpty,
            let normalized = representation.normalizedKey(value, coercion: coercion)
        else {
            // Named by the relationship that held the value, when there is one (`Node.parent`),
            // else by the key it should have been (`Node.id`, at the top level).
            debugger.record(
                .typeMismatch(
                    entity: relationship?.property.entityName ?? entity.name,
                    property: relationship?.name ?? entity.primaryKey?.description ?? "", keyPath: keyPath,
                    value: value,
                    expected: representation.keyAttributes.isEmpty
                        ? "an object (\(entity.name) cannot be referenced by a key)"
                        : "an object or \(Self.keyDescription(representation)) primary key"))
            return nil
        }
        // Through a relationship to a sub-entity, a reference that no occurrence before it
        // stated the entity of is judged once its record is resolved (DESIGN §3.13): against the
        // stored entity, which a missing discriminator keeps, or this verdict for a new record.
        let judgedLater = relationship != nil && representation.index != representation.rootIndex
        if let existing = byKey[representation.keyScopeIndex][normalized] {
            // The record the response made of another branch (a Member, where this link holds an
            // Admin): not what the link may hold, so nothing links to it, as for a stored one.
            let have = existing.representation.name
            let fits =
                existing.representation.index == representation.index
                || store.schema.entity(have, isKindOf: entity.name)
                || store.schema.entity(entity.name, isKindOf: have)
            if judgedLater, existing.isReference || !existing.entityIsStated {
                judgedMembers.append((existing, fits))
                return existing
            }
            if !fits {
                debugger.record(
                    WebRecordError(
                        .typeMismatch,
                        "\(relationship.map { "\($0.property.entityName).\($0.name)" } ?? entity.name) names \(existing), which the response makes a \(have), not a kind of \(entity.name); nothing is linked to it",
                        isFatal: false, entity: relationship?.property.entityName ?? entity.name,
                        property: relationship?.name, keyPath: keyPath, value: value))
                return nil
            }
            return existing
        }
        let proto = arena.make(
            representation: representation, dictionary: representation.referenceDictionary(for: value), parent: parent,
            isReference: true)
        proto.normalizedKey = normalized
        proto.primaryKeyValue = value
        byKey[representation.keyScopeIndex][normalized] = proto
        protoRecords.append(proto)
        if judgedLater { judgedMembers.append((proto, true)) }
        return proto
    }

    /// The proto-record of this graph that has `key` in the key scope numbered `scope`
    /// (``Representation/keyScopeIndex``), if any.
    func proto(withKey key: KeyValue, scope: Int) -> ProtoRecord? {
        byKey.indices.contains(scope) ? byKey[scope][key] : nil
    }

    /// Merges `earlier`, what earlier batches of a streamed response gave `proto`'s record
    /// (which they dropped as incomplete) as the entity of `representation`, beneath what this
    /// batch gives it: as one batch merges the occurrences in turn (DESIGN §3.7, §3.13).
    ///
    /// The record starts again as the earlier occurrences left it, and this batch's occurrences
    /// are merged into it as one later occurrence: their entity decides as a later one does
    /// (a more specific one, or a stated one, wins). A batch that names the record only by key
    /// changes nothing, as a reference to a record met before does in one batch.
    ///
    /// Where this batch's occurrences with data named more than one entity (a `Puppy`, then a
    /// `Cat`), the earlier entity meets the first of them, as in one batch: the batch's own
    /// merge already decided, and warned of, the changes after it. Returns false, changing
    /// nothing, when that first entity would not decide (a more general one that states none
    /// keeps the earlier entity, from which this batch's later occurrences could have decided
    /// otherwise): merged as one occurrence, the record could end otherwise than in one batch.
    @discardableResult
    func mergeEarlier(
        _ earlier: JSONObject, shared earlierShared: [Representation.SharedValue?]?, as representation: Representation,
        stated: Bool, into proto: ProtoRecord
    ) -> Bool {
        let (later, laterRepresentation, laterIsStated) = (proto.dictionary, proto.representation, proto.entityIsStated)
        let laterShared = proto.sharedValues
        let wasReference = proto.isReference
        let first = wasReference ? nil : entityBeforeChange[proto]
        if let first, first.representation !== representation,
            !schema.entity(first.representation.entity.name, isKindOf: representation.entity.name),
            !first.stated, schema.entity(representation.entity.name, isKindOf: first.representation.entity.name)
        {
            return false
        }
        // What earlier batches gave is older than any occurrence of this batch.
        let (laterTimes, laterGiven) = (proto.attributeTimes, proto.lastGiven)
        proto.become(representation)
        proto.dictionary = earlier
        proto.sharedValues = earlierShared
        proto.isReference = false
        proto.entityIsStated = stated
        if let first, first.representation !== representation {
            // The first entity this batch gave decides, as it does in one batch (above), and
            // says so where it names another branch or states a more general entity.
            if !schema.entity(first.representation.entity.name, isKindOf: representation.entity.name) {
                debugger.record(
                    WebRecordError(
                        .invalidResponseFormat,
                        "a duplicate of \(proto) says it is \(first.representation.entity.name), not \(proto.entity.name); the later wins",
                        isFatal: false, entity: first.representation.entity.name, value: .object(later)))
            }
            proto.become(laterRepresentation)
            proto.givenAs = nil
        } else if first != nil {
            proto.become(laterRepresentation)
        }
        _ = merge(
            later, shared: laterShared, into: proto, as: wasReference ? representation : laterRepresentation,
            stated: laterIsStated,
            times: (earlier: { _ in 0 }, later: { laterTimes.indices.contains($0) ? laterTimes[$0] : laterGiven }))
        if laterIsStated { proto.entityIsStated = true }
        return true
    }

    /// A link that earlier batches of a streamed response gave a record they dropped as
    /// incomplete, carried to the batch that names it again (``linkCarried(_:from:into:)``).
    enum CarriedLink {
        /// A to-one kept in the record's row, to a stored record: named again by its key only,
        /// so that what the earlier batch stored of that record is not given again.
        case reference(relationship: Int, key: JSONValue)
        /// A to-one to a record the relationship identifies, or to an object without a key
        /// related there (a child without a key of its own): built again from the carried
        /// dictionary, keeping the `_id` it was given (``ProtoRecord/reservedRowID``).
        case child(relationship: Int, rowID: Int64?, shared: [Representation.SharedValue?]?)
    }

    /// Gives `proto` the links its record's dropped occurrences in earlier batches set, beneath
    /// what this batch's occurrences set, as one batch applies the occurrences in turn: a
    /// relationship this batch sets (or sets to `null`) keeps this batch's link, as a later
    /// value does, and a child it gives again has the earlier child's values merged beneath
    /// its own. Call after ``mergeEarlier(_:shared:as:stated:into:)``; `dictionary` is what the
    /// earlier occurrences gave.
    func linkCarried(_ links: [CarriedLink], from dictionary: JSONObject, into proto: ProtoRecord)
        throws(WebRecordError)
    {
        let representation = proto.representation
        for link in links {
            switch link {
            case .reference(let id, let key):
                guard let mapped = representation.relationships.first(where: { $0.id == id }),
                    !proto.clearedRelationships.contains(mapped.name), let index = mapped.destination
                else {
                    judgedMembers = []
                    continue
                }
                // Set again by this batch, whose link wins; but where it names a record that is
                // not stored, the to-one is what the carried occurrence left it, as one batch
                // falls back on the occurrence before (``ProtoRecord/Link/membersInTurn``).
                let setAgain = proto.hasLink(mapped)
                guard !(setAgain && mapped.isToMany),
                    let member = reference(
                        key, to: representations.all[index], parent: proto, keyPath: mapped.name, via: mapped)
                else {
                    judgedMembers = []
                    continue
                }
                if setAgain {
                    if judgedMembers.isEmpty { proto.noteEarlierLink(mapped, members: [member]) }
                    judgedMembers = []
                    continue
                }
                proto.setLink(mapped, member: member)
                if !judgedMembers.isEmpty {
                    proto.noteJudged(mapped, judgedMembers)
                    judgedMembers = []
                }
            case .child(let id, let rowID, let shared):
                guard let mapped = representation.relationships.first(where: { $0.id == id }),
                    !proto.clearedRelationships.contains(mapped.name),
                    case .object(let earlier)? = mapped.value(in: dictionary)?.value
                else { continue }
                // Given again by this batch: the earlier child's values beneath; else the earlier child.
                if let given = proto.links.first(where: { $0.relationship.id == id })?.members.first {
                    // An object without a key related there that this batch replaces with a
                    // record named by key is unlinked, as in one batch: its `_id` stays unused.
                    if !mapped.identifiesDestination && given.normalizedKey != nil { continue }
                    mergeEarlier(
                        earlier, shared: shared, as: given.representation, stated: given.entityIsStated, into: given)
                } else {
                    try linkRelationships(
                        of: proto, in: dictionary, only: mapped, representation: representation, owner: nil, depth: 1)
                    if let shared {
                        proto.links.first(where: { $0.relationship.id == id })?.members.first?.sharedValues = shared
                    }
                }
                proto.links.first(where: { $0.relationship.id == id })?.members.first?.reservedRowID = rowID
            }
        }
    }

    /// Names the record with the key `key`, of `representation`, by key (it occurs nowhere
    /// else in this batch), and gives it the to-one `relationship` to `member`: the link an
    /// earlier batch's occurrence of that record set to `member`'s record, which that batch
    /// dropped as incomplete and this one names again. The link is given before any occurrence
    /// of this batch, as one batch gives the earlier occurrence. Returns false when the key
    /// names no such record.
    func linkDeferred(
        _ key: JSONValue, of representation: Representation, relationship id: Int, to member: ProtoRecord
    ) -> Bool {
        guard let mapped = representation.relationships.first(where: { $0.id == id }),
            let holder = reference(key, to: representation, parent: nil, keyPath: mapped.name)
        else { return false }
        holder.setLink(mapped, member: member)
        return true
    }

    /// Names the record with the key `key`, of `representation`, by key, unless this batch
    /// names it already, and adds `member` to its to-many `relationship`: the list an earlier
    /// batch's occurrence of that record gave with `member`'s record in it, which that batch
    /// dropped as incomplete and this one names again. The member is added as listed before any
    /// occurrence of this batch (``ProtoRecord/addEarlierMember(_:_:)``), removing no other.
    /// Returns false when the key names no such record.
    func addDeferred(
        _ key: JSONValue, of representation: Representation, relationship id: Int, member: ProtoRecord
    ) -> Bool {
        guard let mapped = representation.relationships.first(where: { $0.id == id }), mapped.isToMany,
            let holder = reference(key, to: representation, parent: nil, keyPath: mapped.name)
        else { return false }
        holder.addEarlierMember(mapped, member)
        return true
    }

    /// Names the record with the key `key`, of `representation`, by key, unless this batch
    /// names it already, and gives it the ordered to-many `relationship` listing `members`: the
    /// list an earlier batch's occurrence of that record gave, in order, which named a record
    /// that batch dropped as incomplete and this one names again. The list is given as an
    /// occurrence before any of this batch's (``ProtoRecord/giveEarlierList(_:members:)``).
    /// Returns false when the key names no such record.
    func giveEarlierList(
        _ key: JSONValue, of representation: Representation, relationship id: Int, members: [ProtoRecord]
    ) -> Bool {
        guard let mapped = representation.relationships.first(where: { $0.id == id }), mapped.isToMany,
            let holder = reference(key, to: representation, parent: nil, keyPath: mapped.name)
        else { return false }
        holder.giveEarlierList(mapped, members: members)
        return true
    }

    /// The record with the key `key`, of `representation`, named by key as the member of a list
    /// an earlier batch gave (``giveEarlierList(_:of:relationship:members:)``): this batch's
    /// record with that key, or a reference to it; nil when the key names no such record.
    func namedAgain(_ key: JSONValue, of representation: Representation, keyPath: String) -> ProtoRecord? {
        reference(key, to: representation, parent: nil, keyPath: keyPath)
    }

    /// What a merge found.
    private enum MergeOutcome {
        case identical
        case merged
    }

    /// DESIGN §3.7: merged per attribute, after key paths are read (``OccurrenceMerge``): later
    /// values fill absent ones, on a conflict the later valid value wins, and an invalid later
    /// value never replaces a valid earlier one.
    ///
    /// A later occurrence that states its entity (its discriminator is present, including a
    /// value that names no sub-entity, DESIGN §3.13) decides it, as a later value does; one that
    /// does not (a short copy without the discriminator) keeps the earlier, more specific one.
    ///
    /// `laterShared` is what the later occurrences chose for the attributes whose key paths meet
    /// (``ProtoRecord/sharedValues``), when `dictionary` is itself occurrences merged (a
    /// batch's, beneath which ``mergeEarlier(_:shared:as:stated:into:)`` merges what earlier
    /// batches gave); nil for one occurrence.
    private func merge(
        _ dictionary: JSONObject, shared laterShared: [Representation.SharedValue?]? = nil, into proto: ProtoRecord,
        as representation: Representation, stated: Bool, times: (earlier: (Int) -> Int, later: (Int) -> Int)
    ) -> MergeOutcome {
        let wasReference = proto.isReference
        if representation !== proto.representation {
            if !wasReference, entityBeforeChange[proto] == nil {
                entityBeforeChange[proto] = (proto.representation, proto.entityIsStated)
            }
            if schema.entity(representation.entity.name, isKindOf: proto.entity.name) {
                proto.become(representation)
                // Data given as a more specific entity than the reference named: the most
                // specific the data was given as.
                if proto.givenAs != nil { proto.givenAs = representation }
            } else if proto.isReference {
                // A reference names the record as its relationship's destination (a `Disc`):
                // data that states its entity, or names another branch, decides; data of a more
                // general entity that states none keeps the reference's, as a missing
                // discriminator keeps a stored record's sub-entity (DESIGN §3.13).
                if stated || !schema.entity(proto.entity.name, isKindOf: representation.entity.name) {
                    proto.become(representation)
                } else {
                    proto.givenAs = representation
                }
            } else if !stated, let given = proto.givenAs,
                schema.entity(representation.entity.name, isKindOf: given.entity.name),
                schema.entity(proto.entity.name, isKindOf: representation.entity.name)
            {
                proto.givenAs = representation
            } else if stated || !schema.entity(proto.entity.name, isKindOf: representation.entity.name) {
                // Two branches of the hierarchy for one record, or a later occurrence that states
                // a more general entity: the later occurrence wins, as a later value does, and
                // says so.
                debugger.record(
                    WebRecordError(
                        .invalidResponseFormat,
                        "a duplicate of \(proto) says it is \(representation.entity.name), not \(proto.entity.name); the later wins",
                        isFatal: false, entity: representation.entity.name, value: .object(dictionary)))
                proto.become(representation)
                proto.givenAs = nil
            }
        } else if proto.givenAs != nil {
            // Data given as the entity the reference named, after data of a more general one.
            proto.givenAs = representation
        }
        proto.isReference = false
        // The common case in real streams: the same record repeated as is (a user on each of
        // their posts). Nothing to merge, and no copy of the dictionary's storage.
        if proto.dictionary == dictionary, laterShared == nil {
            if proto.sharedValues == nil {
                // Every attribute the dictionary holds is given again.
                proto.attributeTimes = []
            } else {
                // Given again, an attribute whose key path another reads may take the value
                // chosen for that other one: each is chosen again, the dictionary left as it is.
                let merged = mergeChoices(dictionary, over: dictionary, of: proto, reports: false)
                noteTimes(of: merged.choices + merged.apart, in: proto, times: times)
                proto.sharedValues = merged.shared
            }
            guard wasReference else { return .identical }
            changes += 1
            return .merged
        }
        // Per attribute, after key paths are read: an attribute the later occurrence lacks keeps
        // the earlier value, wherever the later one puts the keys around it (a short copy's
        // `fields` never hides the full copy's `fields.created`).
        let earlierDictionary = proto.dictionary
        let merged = mergeChoices(
            dictionary, over: earlierDictionary, of: proto, reports: true, laterShared: laterShared)
        noteTimes(of: merged.apart.isEmpty ? merged.choices : merged.choices + merged.apart, in: proto, times: times)
        // Everything else is merged key by key at every depth; then each attribute is made to
        // read what was chosen for it.
        var mergedDictionary = OccurrenceMerge.mergedObjects(earlierDictionary, dictionary)
        OccurrenceMerge.place(merged.choices, in: &mergedDictionary)
        proto.dictionary = mergedDictionary
        if let shared = merged.shared { proto.sharedValues = shared }
        changes += 1
        return .merged
    }

    /// Notes, for each attribute of `choices`, the occurrence whose value the merge kept
    /// (``ProtoRecord/attributeTimes``): the later one's where it won, else the earlier one's.
    private func noteTimes(
        of choices: [OccurrenceMerge.Choice], in proto: ProtoRecord, times: (earlier: (Int) -> Int, later: (Int) -> Int)
    ) {
        guard let width = proto.representation.table?.columns.count else { return }
        var noted = [Int](repeating: 0, count: width)
        for choice in choices where noted.indices.contains(choice.attribute.column) {
            let column = choice.attribute.column
            noted[column] = choice.isLater ? times.later(column) : times.earlier(column)
        }
        proto.attributeTimes = noted
    }

    /// `parent` as a primary-key injection is given it: with every occurrence met so far merged,
    /// those of earlier batches of a streamed response included, as one batch gives it. Where
    /// an earlier batch gave the parent an injection and what it gave was not kept, the parent
    /// is noted (``unkeptParent``).
    private func parentRecord(_ parent: ProtoRecord) -> ParentRecord {
        guard let earlierParents, let identity = ParentIdentity(parent) else { return ParentRecord(parent) }
        switch earlierParents.earlier(identity) {
        case nil:
            return ParentRecord(parent)
        case .kept(let dictionary, let primaryKeyValue)?:
            return ParentRecord(
                entity: parent.entity, dictionary: mergedDictionary(parent.dictionary, over: dictionary, of: parent),
                primaryKeyValue: primaryKeyValue ?? parent.primaryKeyValue)
        case .remembered(let hash)?:
            // Given again as is, the occurrences merge into what this batch gives.
            if hash == parent.dictionary.hashValue { return ParentRecord(parent) }
            if unkeptParent == nil { unkeptParent = parent }
            return ParentRecord(parent)
        }
    }

    /// Notes, once the batch is built, what it gave the records that may be the parents of a
    /// later batch's primary-key injections (those with relationships that a later batch can
    /// name again: by key, or through their owner), for the batches after it; then lets go of
    /// them, which only the reading thread may touch.
    /// Whether `proto`'s dictionary gives every non-optional attribute without a default a value
    /// it takes (``ProtoRecord/completedAt``).
    private func isComplete(_ proto: ProtoRecord) -> Bool {
        let dictionary = proto.dictionary
        let shared = proto.sharedValues
        return proto.representation.requiredAttributes.allSatisfy { mapped in
            let prepared =
                shared == nil
                ? Marshaler.prepare(mapped, in: dictionary, coercion: coercion)
                : Marshaler.prepare(mapped, value: proto.value(of: mapped), coercion: coercion)
            switch prepared {
            case .value(let stored): return !stored.isNull
            case .absent: return false
            // A value transformer's result, or a refused value, is known only when set.
            case .reported: return mapped.transformer != nil
            }
        }
    }

    /// The records named inside records that are not stored for want of a key (decision 5), by
    /// their representation and key: named by the response all the same, so neither the orphan
    /// pass nor a list's cascade deletes them (decision 14), although nothing is written to them.
    private(set) var namedOnly: [(representation: Representation, key: KeyValue)] = []

    /// Notes the records that `dictionary` (of `representation`, not stored) names through its
    /// relationships, as objects with a key or by key, at any depth (``namedOnly``).
    private func noteNamed(in dictionary: JSONObject, representation: Representation, depth: Int) {
        guard depth < options.maximumRecordDepth else { return }
        for mapped in representation.relationships {
            guard let found = mapped.value(in: dictionary), let index = mapped.destination else { continue }
            let values: [JSONValue]
            if case .array(let elements) = found.value { values = elements } else { values = [found.value] }
            for value in values {
                var destination = representations.all[index]
                switch value {
                case .null:
                    continue
                case .object(let nested):
                    if destination.isDiscriminated,
                        let choice = selector.choice(for: nested, startingAt: destination.entity),
                        let chosen = representations[choice.entity.name]
                    {
                        destination = chosen
                    }
                    if !destination.keyAttributes.isEmpty, let raw = destination.rawPrimaryKey(in: nested),
                        let key = destination.normalizedKey(raw, coercion: coercion)
                    {
                        namedOnly.append((destination, key))
                    }
                    noteNamed(in: nested, representation: destination, depth: depth + 1)
                default:
                    if !destination.keyAttributes.isEmpty,
                        let key = destination.normalizedKey(value, coercion: coercion)
                    {
                        namedOnly.append((destination, key))
                    }
                }
            }
        }
    }

    func keepInjectionParents() {
        guard let earlierParents else { return }
        for proto in protoRecords where !proto.representation.relationships.isEmpty {
            guard let identity = ParentIdentity(proto) else { continue }
            // What an object without a key under each to-one will be in the batches after this
            // one, as the record's latest occurrence leaves it (decision 6): the record it names
            // by key, nothing after a `null` (a new record), or a new record made here.
            for link in proto.links where !link.relationship.isToMany {
                let under = ParentIdentity.under(identity, relationship: link.relationship.id)
                guard let member = link.members.first else {
                    earlierParents.forget(under)
                    continue
                }
                if let key = member.normalizedKey {
                    earlierParents.alias(under, to: .key(ScopedKey(member, key)))
                } else if member.isNewThere {
                    earlierParents.forget(under)
                }
            }
            // An object without a key that its owner's latest occurrence no longer relates is
            // nothing a later batch can name.
            if proto.normalizedKey == nil, let owner = proto.owner,
                let link = owner.proto.links.first(where: { $0.relationship.id == owner.relationship.id }),
                !link.members.contains(proto)
            {
                continue
            }
            earlierParents.note(identity, dictionary: proto.dictionary, primaryKeyValue: proto.primaryKeyValue) {
                mergedDictionary(proto.dictionary, over: $0, of: proto)
            }
        }
        self.earlierParents = nil
    }

    /// `later` merged over `earlier` as a later occurrence of `proto`'s record is merged
    /// (``merge(_:into:as:stated:)``), reporting nothing: what a view of the record needs.
    private func mergedDictionary(_ later: JSONObject, over earlier: JSONObject, of proto: ProtoRecord) -> JSONObject {
        guard later != earlier else { return later }
        var merged = OccurrenceMerge.mergedObjects(earlier, later)
        OccurrenceMerge.place(mergeChoices(later, over: earlier, of: proto, reports: false).choices, in: &merged)
        return merged
    }

    /// What each attribute of `proto` reads once `later`, an occurrence of its record, is merged
    /// over `earlier`: the later value where it is present, and valid or the earlier one is not;
    /// otherwise the earlier. With `reports`, a valid earlier value kept over an invalid later
    /// one is a warning, and a value that changes is logged.
    ///
    /// The attributes of the other entities of its hierarchy are merged too
    /// (``Representation/hierarchyAttributes``): occurrences that do not state the entity
    /// (`{"id": 1, "rate": 1.5}`, then `{"id": 1, "rate": true}`) may be of a record the store
    /// or a later occurrence makes an entity with that attribute, whose refused later value
    /// must not replace the valid earlier one either. Nothing is reported for them: the record
    /// may end as an entity without them, whose response merely holds those members.
    ///
    /// The attributes of the hierarchy whose key paths meet (``Representation/sharedAttributes``)
    /// are chosen each for itself, as the occurrences applied in turn leave each column: the
    /// earlier value is what was chosen for the attribute before (``ProtoRecord/sharedValues``),
    /// the later one what `laterShared` holds for it, if anything, and the choices are
    /// returned as `shared` (nil for a hierarchy without such attributes). Those of the
    /// record's own entity are placed in the dictionary too, as it reads them; the others
    /// (`apart`) are not: one dictionary cannot hold every one's value.
    private func mergeChoices(
        _ later: JSONObject, over earlier: JSONObject, of proto: ProtoRecord, reports reportsOwn: Bool,
        laterShared: [Representation.SharedValue?]? = nil
    ) -> (choices: [OccurrenceMerge.Choice], apart: [OccurrenceMerge.Choice], shared: [Representation.SharedValue?]?) {
        var choices: [OccurrenceMerge.Choice] = []
        let representation = proto.representation
        let own = representation.attributes.count
        let attributes =
            representation.hierarchyAttributes.isEmpty
            ? representation.attributes : representation.attributes + representation.hierarchyAttributes
        // Rare: attributes whose key paths meet. Each is chosen apart.
        let sharedAttributes = representation.sharedAttributes
        let earlierShared = sharedAttributes.isEmpty ? nil : proto.sharedValues
        var shared: [Representation.SharedValue?] = []
        var chosenApart: [OccurrenceMerge.Choice] = []
        if !sharedAttributes.isEmpty {
            shared = [Representation.SharedValue?](repeating: nil, count: sharedAttributes.count)
        }
        let apart = sharedAttributes.filter { representation.attribute(atColumn: $0.column) == nil }
        for (position, mapped) in (apart.isEmpty ? attributes : attributes + apart).enumerated() {
            let reports = reportsOwn && position < own
            let isApart = position >= attributes.count
            var earlierFound = mapped.value(in: earlier)
            var laterFound = mapped.value(in: later)
            let sharedPosition = sharedAttributes.isEmpty ? nil : representation.sharedPositions[mapped.column]
            if let sharedPosition {
                if let earlierShared, earlierShared.indices.contains(sharedPosition) {
                    earlierFound = earlierShared[sharedPosition]?.found(as: mapped)
                }
                if let laterShared, laterShared.indices.contains(sharedPosition) {
                    laterFound = laterShared[sharedPosition]?.found(as: mapped)
                }
            }
            guard
                let choice = choose(
                    mapped, earlier: earlierFound, later: laterFound, of: proto, reports: reports)
            else { continue }
            if let sharedPosition, shared.indices.contains(sharedPosition) {
                shared[sharedPosition] = Representation.SharedValue(choice.found, of: mapped)
            }
            if isApart { chosenApart.append(choice) } else { choices.append(choice) }
        }
        return (choices, chosenApart, sharedAttributes.isEmpty ? nil : shared)
    }

    /// The value `mapped` keeps of `earlier` and `later`, what two occurrences of `proto`'s
    /// record give it (``mergeChoices(_:over:of:reports:laterShared:)``); nil when neither gives one.
    private func choose(
        _ mapped: Representation.MappedAttribute, earlier: Representation.Found?, later: Representation.Found?,
        of proto: ProtoRecord, reports: Bool
    ) -> OccurrenceMerge.Choice? {
        guard let later else {
            return earlier.map { OccurrenceMerge.Choice(attribute: mapped, found: $0) }
        }
        if let earlier, earlier.value == later.value {
            // The same value, wherever each found it: nothing to move. The later occurrence gave
            // it again, though: applied in turn, it sets the value after anything given between
            // the two (an object without a key taken for the record, decision 6).
            return OccurrenceMerge.Choice(attribute: mapped, found: earlier, isLater: true)
        }
        if let earlier {
            if !mapped.accepts(later.value, coercion: coercion, store: store),
                mapped.accepts(earlier.value, coercion: coercion, store: store)
            {
                if reports {
                    debugger.record(
                        .typeMismatch(
                            entity: proto.representation.name, property: mapped.name, keyPath: later.keyPath,
                            value: later.value,
                            expected:
                                "\(mapped.type.withArticle) (a duplicate of \(proto) with a valid earlier value, which is kept)"
                        ))
                }
                return OccurrenceMerge.Choice(attribute: mapped, found: earlier)
            }
            if reports, !mapped.accepts(earlier.value, coercion: coercion, store: store) {
                // Replaced, it is never stored, but it was refused all the same (decision
                // 10): reported here, once, as the later value is where it is prepared.
                debugger.record(
                    .typeMismatch(
                        entity: proto.representation.name, property: mapped.name, keyPath: earlier.keyPath,
                        value: earlier.value,
                        expected:
                            "\(mapped.type.withArticle) (a duplicate of \(proto) with a later value, which wins)"))
            }
            if reports {
                debugger.log(
                    .debug,
                    "duplicate record in response: '\(later.keyPath)' changes from \(WebRecordError.excerpt(of: WebRecordError.shown(earlier.value, of: later.keyPath))) to \(WebRecordError.excerpt(of: WebRecordError.shown(later.value, of: later.keyPath))); the later value wins",
                    entity: proto.representation.name)
            }
        }
        return OccurrenceMerge.Choice(attribute: mapped, found: later, isLater: true)
    }

    private func keyPath(_ entity: Entity) -> String? {
        entity.primaryKey.map { key in
            key.propertyNames.map { name in entity.attribute(named: name)?.keyPaths.first ?? name }.joined(
                separator: "+")
        }
    }

    private func keyPath(_ relationship: Relationship) -> String {
        relationship.keyPaths.first ?? relationship.name
    }
}

/// A record's identity across the batches of a streamed response, on the thread that reads
/// them: its key, or, for a record without one, its owner's identity and the owner's
/// relationship to it (a record identified by its owner, or one related there without a key).
indirect enum ParentIdentity: Hashable {
    case key(ScopedKey)
    case under(ParentIdentity, relationship: Int)

    /// The identity of `proto`; nil for a record a later batch cannot name again.
    init?(_ proto: ProtoRecord) {
        if let key = proto.normalizedKey {
            self = .key(ScopedKey(proto, key))
        } else if let owner = proto.owner, let identity = ParentIdentity(owner.proto) {
            self = .under(identity, relationship: owner.relationship.id)
        } else {
            return nil
        }
    }
}

/// What the batches of a streamed response gave the records that may be the parents of
/// primary-key injections, for the batches after them: one batch gives an injection its parent
/// with every occurrence met so far merged, and a later batch's injection gets the same
/// (``ProtoRecordBuilder``). Kept on the thread that reads and builds the batches, and only
/// with an injection.
///
/// At most ``capacity`` records are kept whole, so that the dictionaries held stay bounded on a
/// response of any size; past that, a record is only remembered by a hash of its identity and
/// one of its dictionary (a few bytes, as the counts keep for every row). A later batch that
/// gives such a record as is needs nothing more; an injection given one that changed reads the
/// response again whole.
final class InjectionParents {
    /// What earlier batches gave a record.
    enum Earlier {
        /// Its occurrences merged, and its key as first given.
        case kept(JSONObject, primaryKeyValue: JSONValue?)
        /// Only remembered: the hash of its occurrences merged, or nil once they differed.
        case remembered(Int?)
    }

    private var kept: [ParentIdentity: (dictionary: JSONObject, primaryKeyValue: JSONValue?)] = [:]
    /// The records met past ``capacity``, by the hash of their identity: the hash of their
    /// dictionary, or nil once a later batch gave them otherwise. A collision only reads the
    /// response again.
    private var remembered: [Int: Int?] = [:]
    /// The most records kept whole.
    let capacity: Int

    /// The default ``capacity``: a few thousand parents, at about a kilobyte each.
    static let defaultCapacity = 8192

    init(capacity: Int = InjectionParents.defaultCapacity) {
        self.capacity = capacity
    }

    /// The record an object without a key under a to-one is, by the owner's identity and the
    /// relationship (``ParentIdentity/under(_:relationship:)``), where the owner's latest
    /// occurrence named a record by key there.
    private var aliases: [ParentIdentity: ParentIdentity] = [:]

    /// `identity`, or the record it stands for (``aliases``).
    private func resolved(_ identity: ParentIdentity) -> ParentIdentity { aliases[identity] ?? identity }

    /// Notes that an object without a key under `under` is the record `record` from now on.
    func alias(_ under: ParentIdentity, to record: ParentIdentity) {
        aliases[under] = record
        kept[under] = nil
        remembered[under.hashValue] = nil
    }

    /// Forgets what earlier batches gave the object under `under`: nothing is related there any
    /// more, and a later object without a key there is a new record.
    func forget(_ under: ParentIdentity) {
        aliases[under] = nil
        kept[under] = nil
        remembered[under.hashValue] = nil
    }

    /// What earlier batches gave the record `identity`; nil when none gave it.
    func earlier(_ identity: ParentIdentity) -> Earlier? {
        let identity = resolved(identity)
        if let found = kept[identity] { return .kept(found.dictionary, primaryKeyValue: found.primaryKeyValue) }
        return remembered[identity.hashValue].map { .remembered($0) }
    }

    /// Notes what a batch gave the record `identity`: merged into what earlier batches gave it
    /// (`merging` gets that), kept whole while there is room, or remembered.
    func note(
        _ identity: ParentIdentity, dictionary: JSONObject, primaryKeyValue: JSONValue?,
        merging: (JSONObject) -> JSONObject
    ) {
        let identity = resolved(identity)
        if let found = kept[identity] {
            kept[identity] = (merging(found.dictionary), found.primaryKeyValue)
        } else if let hash = remembered[identity.hashValue] {
            // As is, the merge is what it was; otherwise it is no longer known.
            if hash != dictionary.hashValue { remembered[identity.hashValue] = .some(nil) }
        } else if kept.count < capacity {
            kept[identity] = (dictionary, primaryKeyValue)
        } else {
            remembered[identity.hashValue] = dictionary.hashValue
        }
    }
}
