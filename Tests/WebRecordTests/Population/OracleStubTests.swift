import Foundation
import Testing

@testable import WebRecord

/// Stubs and incomplete records checked against a reference model of the documented rules
/// (DESIGN §3.5 and §3.11; Docs/Population.md, decision 5, "Incomplete new records", "Defaults",
/// "A record identified by its owner goes with it", and "Large responses: streamed
/// population"), over seeded random re-syncs, then whole against streamed.
///
/// The schema: an `Order` with a non-optional `status` (no default), an optional `note` and a
/// non-optional `priority` that defaults to 0; its `customer` (a to-one kept in the order's
/// row), whose `name` is non-optional and whose `tier` defaults to `"basic"`; its `lines`
/// (a one-to-many merged by `replace`), keyed, with a non-optional `qty`; and its `summary`,
/// identified by its order. A line's key names its order (line 21 is order 2's), so that no
/// line is claimed by two lists.
///
/// Left out, where the documents leave the outcome open: a nested object that gives only its
/// key (`{"id": 11}`: a stub or a record with data), and the counts of updated against
/// unchanged records (only inserted, deleted, and the sum of the others for orders, are
/// compared).
@Suite("Population: stubs and incomplete records against a reference model")
struct OracleStubTests {
    // MARK: - The schema

    static let schemaJSON = #"""
        {"version": 1, "entities": {
          "Order": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "status": {"type": "string", "optional": false},
              "note": {"type": "string"}, "priority": {"type": "integer", "optional": false, "default": 0}},
            "relationships": {
              "customer": {"destination": "Customer", "inverse": "orders"},
              "lines": {"destination": "Line", "toMany": true, "inverse": "order"},
              "summary": {"destination": "Summary", "inverse": "order"}}},
          "Customer": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string", "optional": false},
              "tier": {"type": "string", "optional": false, "default": "basic"}},
            "relationships": {"orders": {"destination": "Order", "toMany": true, "inverse": "customer"}}},
          "Line": {"primaryKey": "id",
            "attributes": {"id": {"type": "integer"}, "qty": {"type": "integer", "optional": false}},
            "relationships": {"order": {"destination": "Order", "inverse": "lines"}}},
          "Summary": {"primaryKey": "order",
            "attributes": {"total": {"type": "integer"}},
            "relationships": {"order": {"destination": "Order", "inverse": "summary"}}}
        }}
        """#

    static let schema: Schema = {
        do {
            return try Schema(json: schemaJSON, fileName: "OracleStubs.json")
        } catch {
            preconditionFailure("the schema must load: \(error)")
        }
    }()

    static let entities = ["Customer", "Line", "Order", "Summary"]

    // MARK: - Responses, as values

    /// A member of a dictionary: absent, `null`, or a value.
    enum Field<Value: Equatable>: Equatable {
        case absent
        case null
        case value(Value)
    }

    /// A `priority`: absent, `null` (refused: non-optional), a number, or `"x"` (refused).
    enum Priority: Equatable {
        case absent
        case null
        case value(Int)
        case refused
    }

    enum CustomerGiven: Equatable {
        /// A reference by key.
        case key(String)
        /// An object with its key and at least one of its attributes present.
        case object(String, name: Field<String>, tier: Field<String>)
    }

    struct LineGiven: Equatable {
        var id: Int
        /// `nil`: a reference by key; otherwise an object whose `qty` is `null` or a value.
        var qty: Field<Int>?
    }

    struct OrderGiven: Equatable {
        var id: Int
        var status: Field<String> = .absent
        var note: Field<String> = .absent
        var priority: Priority = .absent
        var customer: Field<CustomerGiven> = .absent
        var lines: Field<[LineGiven]> = .absent
        /// Absent, `null`, or an object whose `total` is `null` or a value.
        var summary: Field<Int?> = .absent
    }

    struct Sync: Equatable {
        var orders: [OrderGiven]
        var deleteOrphans = false
    }

    // MARK: - JSON text

    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    static func member(_ name: String, _ field: Field<String>, into members: inout [String]) {
        switch field {
        case .absent: break
        case .null: members.append("\(quoted(name)): null")
        case .value(let text): members.append("\(quoted(name)): \(quoted(text))")
        }
    }

    static func json(_ customer: CustomerGiven) -> String {
        switch customer {
        case .key(let id): return quoted(id)
        case .object(let id, let name, let tier):
            var members = ["\"id\": \(quoted(id))"]
            member("name", name, into: &members)
            member("tier", tier, into: &members)
            return "{" + members.joined(separator: ", ") + "}"
        }
    }

    static func json(_ line: LineGiven) -> String {
        switch line.qty {
        case nil: return String(line.id)
        case .null?, .absent?: return "{\"id\": \(line.id), \"qty\": null}"
        case .value(let qty)?: return "{\"id\": \(line.id), \"qty\": \(qty)}"
        }
    }

    static func json(_ order: OrderGiven) -> String {
        var members = ["\"id\": \(order.id)"]
        member("status", order.status, into: &members)
        member("note", order.note, into: &members)
        switch order.priority {
        case .absent: break
        case .null: members.append("\"priority\": null")
        case .value(let value): members.append("\"priority\": \(value)")
        case .refused: members.append("\"priority\": \"x\"")
        }
        switch order.customer {
        case .absent: break
        case .null: members.append("\"customer\": null")
        case .value(let customer): members.append("\"customer\": \(json(customer))")
        }
        switch order.lines {
        case .absent: break
        case .null: members.append("\"lines\": null")
        case .value(let lines): members.append("\"lines\": [" + lines.map { json($0) }.joined(separator: ", ") + "]")
        }
        switch order.summary {
        case .absent: break
        case .null: members.append("\"summary\": null")
        case .value(let total): members.append("\"summary\": {\"total\": \(total.map(String.init) ?? "null")}")
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func json(_ orders: [OrderGiven]) -> String {
        #"{"data": ["# + orders.map { json($0) }.joined(separator: ",\n") + "]}"
    }

    // MARK: - The reference model

    struct OrderRow: Equatable {
        var status: String?
        var note: String?
        var priority: Int?
        var customer: String?
    }

    struct CustomerRow: Equatable {
        var name: String?
        var tier: String?
    }

    struct LineRow: Equatable {
        var qty: Int?
        var order: Int?
    }

    struct Model: Equatable {
        var orders: [Int: OrderRow] = [:]
        var customers: [String: CustomerRow] = [:]
        var lines: [Int: LineRow] = [:]
        var summaries: [Int: Int?] = [:]

        var text: [String] {
            func text(_ value: String?) -> String { value.map { "'\($0)'" } ?? "nil" }
            func number(_ value: Int?) -> String { value.map(String.init) ?? "nil" }
            var result: [String] = []
            for (id, row) in orders {
                result.append(
                    "Order \(id): status=\(text(row.status)) note=\(text(row.note)) priority=\(number(row.priority)) customer=\(text(row.customer))"
                )
            }
            for (id, row) in customers {
                result.append("Customer \(id): name=\(text(row.name)) tier=\(text(row.tier))")
            }
            for (id, row) in lines { result.append("Line \(id): qty=\(number(row.qty)) order=\(number(row.order))") }
            for (id, total) in summaries { result.append("Summary \(id): total=\(number(total))") }
            return result.sorted()
        }
    }

    /// The counts one response must give: inserted and deleted of every entity, and, for
    /// orders, the stored orders it named (updated and unchanged together).
    struct Expected: Equatable {
        var inserted: [String: Int] = [:]
        var deleted: [String: Int] = [:]
        var namedStoredOrders = 0
        /// What the response exercised: new records not stored, and stubs stored.
        var dropped: [String: Int] = [:]
        var stubs = 0
    }

    /// What the occurrences of one record give, merged (DESIGN §3.7): each attribute's last
    /// valid value, and whether any occurrence gave data.
    struct Merged<Value: Equatable> {
        var data = false
        var values: [String: Value?] = [:]
    }

    /// `sync` applied to `model` as the documents say: the new model, the counts, or `nil` when
    /// the response must fail (and leave the store as it was).
    static func apply(_ sync: Sync, to model: Model) -> (Model, Expected)? {
        // Customers and lines, merged over every occurrence in response order.
        var customers: [String: Merged<String>] = [:]
        var customerOrder: [String] = []
        var lines: [Int: Merged<Int>] = [:]
        for order in sync.orders {
            if case .value(let given) = order.customer {
                switch given {
                case .key(let id):
                    if customers[id] == nil {
                        customerOrder.append(id)
                        customers[id] = Merged()
                    }
                case .object(let id, let name, let tier):
                    if customers[id] == nil { customerOrder.append(id) }
                    var merged = customers[id] ?? Merged()
                    merged.data = true
                    // A null for a non-optional attribute is refused: it never replaces a value.
                    if case .value(let text) = name { merged.values["name"] = text }
                    if case .value(let text) = tier { merged.values["tier"] = text }
                    customers[id] = merged
                }
            }
            if case .value(let given) = order.lines {
                for line in given {
                    var merged = lines[line.id] ?? Merged()
                    if let qty = line.qty {
                        merged.data = true
                        if case .value(let value) = qty { merged.values["qty"] = value }
                    }
                    lines[line.id] = merged
                }
            }
        }
        var next = model
        var expected = Expected()
        // Customers: a new one with data lacking its name is not stored; a stub is.
        for id in customerOrder {
            let merged = customers[id] ?? Merged()
            if var row = next.customers[id] {
                if let name = merged.values["name"] { row.name = name }
                if let tier = merged.values["tier"] { row.tier = tier }
                next.customers[id] = row
            } else {
                let name = merged.values["name"] ?? nil
                if merged.data && name == nil {
                    expected.dropped["Customer", default: 0] += 1
                    continue
                }
                if !merged.data { expected.stubs += 1 }
                next.customers[id] = CustomerRow(name: name, tier: (merged.values["tier"] ?? nil) ?? "basic")
                expected.inserted["Customer", default: 0] += 1
            }
        }
        for (id, merged) in lines.sorted(by: { $0.key < $1.key }) {
            if var row = next.lines[id] {
                if let qty = merged.values["qty"] { row.qty = qty }
                next.lines[id] = row
            } else {
                let qty = merged.values["qty"] ?? nil
                if merged.data && qty == nil {
                    expected.dropped["Line", default: 0] += 1
                    continue
                }
                if !merged.data { expected.stubs += 1 }
                next.lines[id] = LineRow(qty: qty, order: nil)
                expected.inserted["Line", default: 0] += 1
            }
        }
        // Orders, in order of first occurrence.
        var orderIDs: [Int] = []
        for order in sync.orders where !orderIDs.contains(order.id) { orderIDs.append(order.id) }
        var stored = 0
        var dropped = 0
        for id in orderIDs {
            let occurrences = sync.orders.filter { $0.id == id }
            var status: String?? = nil
            var note: String?? = nil
            var priority: Int? = nil
            for occurrence in occurrences {
                if case .value(let text) = occurrence.status { status = .some(text) }
                switch occurrence.note {
                case .absent: break
                case .null: note = .some(nil)
                case .value(let text): note = .some(text)
                }
                if case .value(let value) = occurrence.priority { priority = value }
            }
            let existed = model.orders[id] != nil
            var row: OrderRow
            if let old = model.orders[id] {
                row = old
                if let status { row.status = status }
                if let note { row.note = note }
                if let priority { row.priority = priority }
                expected.namedStoredOrders += 1
            } else {
                guard let status = status ?? nil else {
                    dropped += 1
                    expected.dropped["Order", default: 0] += 1
                    continue
                }
                row = OrderRow(status: status, note: note ?? nil, priority: priority ?? 0, customer: nil)
                expected.inserted["Order", default: 0] += 1
            }
            stored += 1
            // The customer: what the occurrence before left it when one names a record not stored.
            for occurrence in occurrences {
                switch occurrence.customer {
                case .absent: break
                case .null: row.customer = nil
                case .value(.key(let customer)), .value(.object(let customer, _, _)):
                    if next.customers[customer] != nil { row.customer = customer }
                }
            }
            next.orders[id] = row
            // The lines: the last list given replaces the members; a line not stored is left out.
            if let last = occurrences.last(where: { $0.lines != .absent }) {
                var listed: Set<Int> = []
                if case .value(let given) = last.lines {
                    listed = Set(given.map(\.id).filter { next.lines[$0] != nil })
                }
                for (lineID, line) in next.lines where line.order == id && !listed.contains(lineID) {
                    next.lines[lineID]?.order = nil
                }
                for lineID in listed { next.lines[lineID]?.order = id }
            }
            // The summary: the owner's last occurrence that gives it decides.
            if let last = occurrences.last(where: { $0.summary != .absent }) {
                switch last.summary {
                case .absent: break
                case .null:
                    if existed && next.summaries[id] != nil {
                        next.summaries[id] = nil
                        expected.deleted["Summary", default: 0] += 1
                    }
                case .value(let total):
                    if next.summaries[id] == nil { expected.inserted["Summary", default: 0] += 1 }
                    next.summaries[id] = .some(total)
                }
            }
        }
        if !sync.orders.isEmpty && stored == 0 { return nil }
        if sync.deleteOrphans {
            if dropped > 0 { return nil }
            for id in next.orders.keys.sorted() where !orderIDs.contains(id) {
                next.orders[id] = nil
                expected.deleted["Order", default: 0] += 1
                if next.summaries[id] != nil {
                    next.summaries[id] = nil
                    expected.deleted["Summary", default: 0] += 1
                }
                for (lineID, line) in next.lines where line.order == id { next.lines[lineID]?.order = nil }
            }
        }
        return (next, expected)
    }

    /// The store, read as the model writes it.
    static func model(of store: RecordStore) throws -> Model {
        func int(_ value: DatabaseValue) -> Int? {
            if case .integer(let number) = value { return Int(number) }
            return nil
        }
        func text(_ value: DatabaseValue) -> String? {
            if case .text(let string) = value { return string }
            return nil
        }
        return try store.read { connection in
            var model = Model()
            for row in try connection.rows(
                #"SELECT o."id", o."status", o."note", o."priority", c."id" FROM "Order" o LEFT JOIN "Customer" c ON c."_id" = o."customer""#
            ) {
                model.orders[int(row[0]) ?? -1] = OrderRow(
                    status: text(row[1]), note: text(row[2]), priority: int(row[3]), customer: text(row[4]))
            }
            for row in try connection.rows(#"SELECT "id", "name", "tier" FROM "Customer""#) {
                model.customers[text(row[0]) ?? "?"] = CustomerRow(name: text(row[1]), tier: text(row[2]))
            }
            for row in try connection.rows(
                #"SELECT l."id", l."qty", o."id" FROM "Line" l LEFT JOIN "Order" o ON o."_id" = l."order""#)
            {
                model.lines[int(row[0]) ?? -1] = LineRow(qty: int(row[1]), order: int(row[2]))
            }
            for row in try connection.rows(
                #"SELECT o."id", s."total" FROM "Summary" s LEFT JOIN "Order" o ON o."_id" = s."order""#)
            {
                model.summaries[int(row[0]) ?? -1] = .some(int(row[1]))
            }
            return model
        }
    }

    static func options(_ sync: Sync) -> PopulationOptions {
        var options = PopulationOptions()
        if sync.deleteOrphans { options.deleteOrphans = .all }
        return options
    }

    /// The first difference between the store and the model over `syncs`, or `nil`.
    static func firstMismatch(_ syncs: [Sync]) throws -> String? {
        let store = try RecordStore(inMemory: schema)
        var model = Model()
        for (index, sync) in syncs.enumerated() {
            let text = json(sync.orders)
            let wanted = apply(sync, to: model)
            let result: PopulationResult?
            do {
                result = try store.populate(try JSONReader().read(text), entity: "Order", options: options(sync))
            } catch {
                result = nil
                if wanted != nil { return report(syncs, index, ["  failed: \(error)"]) }
            }
            guard let (next, expected) = wanted else {
                if result != nil { return report(syncs, index, ["  succeeded; the documents say it fails"]) }
                let stored = try Self.model(of: store).text
                if stored != model.text { return report(syncs, index, ["  a failed response wrote something"]) }
                continue
            }
            guard let result else { continue }
            model = next
            var problems: [String] = []
            let stored = try Self.model(of: store).text
            let wantedLines = model.text
            problems += stored.filter { !wantedLines.contains($0) }.map { "  store holds: \($0)" }
            problems += wantedLines.filter { !stored.contains($0) }.map { "  model holds: \($0)" }
            for entity in entities {
                let got = result.changesByEntity[entity] ?? ChangeCounts()
                if got.inserted != expected.inserted[entity, default: 0]
                    || got.deleted != expected.deleted[entity, default: 0]
                {
                    problems.append(
                        "  counts of \(entity): \(got), model: inserted \(expected.inserted[entity, default: 0]), deleted \(expected.deleted[entity, default: 0])"
                    )
                }
            }
            let orders = result.changesByEntity["Order"] ?? ChangeCounts()
            if orders.updated + orders.unchanged != expected.namedStoredOrders {
                problems.append("  orders updated and unchanged: \(orders), model: \(expected.namedStoredOrders)")
            }
            if !problems.isEmpty { return report(syncs, index, problems) }
        }
        return nil
    }

    static func report(_ syncs: [Sync], _ index: Int, _ problems: [String]) -> String {
        let history = syncs[...index].map { ($0.deleteOrphans ? "orphans " : "") + json($0.orders) }
        return "after sync \(index + 1) of\n" + history.joined(separator: "\n") + "\n"
            + problems.joined(separator: "\n")
    }

    // MARK: - Generating sequences

    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

        mutating func string(absent: Int = 35, null: Int = 15) -> Field<String> {
            let roll = below(100)
            if roll < absent { return .absent }
            if roll < absent + null { return .null }
            return .value(pick(["a", "b"]))
        }

        mutating func order() -> OrderGiven {
            var order = OrderGiven(id: 1 + below(4))
            order.status = string(absent: 40, null: 10)
            order.note = string()
            let priority = below(100)
            order.priority =
                priority < 50 ? .absent : priority < 60 ? .null : priority < 70 ? .refused : .value(1 + below(3))
            let customer = below(100)
            if customer < 30 {
                order.customer = .absent
            } else if customer < 40 {
                order.customer = .null
            } else {
                let id = pick(["c1", "c2", "c3"])
                if chance(40) {
                    order.customer = .value(.key(id))
                } else {
                    var name = string()
                    let tier = string(absent: 50, null: 10)
                    if name == .absent && tier == .absent { name = .null }
                    order.customer = .value(.object(id, name: name, tier: tier))
                }
            }
            let lines = below(100)
            if lines < 45 {
                order.lines = .absent
            } else if lines < 55 {
                order.lines = .null
            } else {
                var made: [LineGiven] = []
                for _ in 0..<below(3) {
                    let id = order.id * 10 + 1 + below(3)
                    if made.contains(where: { $0.id == id }) { continue }
                    let qty: Field<Int>? = chance(35) ? nil : chance(35) ? .null : .value(1 + below(3))
                    made.append(LineGiven(id: id, qty: qty))
                }
                order.lines = .value(made)
            }
            let summary = below(100)
            if summary < 55 {
                order.summary = .absent
            } else if summary < 70 {
                order.summary = .null
            } else {
                order.summary = .value(chance(25) ? nil : 1 + below(3))
            }
            return order
        }

        mutating func syncs() -> [Sync] {
            var syncs: [Sync] = []
            for _ in 0..<(2 + below(3)) {
                var sync = Sync(orders: [], deleteOrphans: chance(20))
                for _ in 0..<(1 + below(6)) { sync.orders.append(order()) }
                syncs.append(sync)
            }
            return syncs
        }
    }

    // MARK: - Shrinking

    static func smaller(_ syncs: [Sync]) -> [[Sync]] {
        var variants: [[Sync]] = []
        for index in syncs.indices {
            var fewer = syncs
            fewer.remove(at: index)
            variants.append(fewer)
        }
        for index in syncs.indices {
            if syncs[index].deleteOrphans {
                var plain = syncs
                plain[index].deleteOrphans = false
                variants.append(plain)
            }
            for position in syncs[index].orders.indices {
                var fewer = syncs
                fewer[index].orders.remove(at: position)
                variants.append(fewer)
                let given = syncs[index].orders[position]
                var edits: [(inout OrderGiven) -> Void] = [
                    { $0.status = .absent }, { $0.note = .absent }, { $0.priority = .absent },
                    { $0.customer = .absent }, { $0.lines = .absent }, { $0.summary = .absent },
                ]
                if case .value(let lines) = given.lines {
                    for element in lines.indices {
                        edits.append {
                            $0.lines = .value(lines.enumerated().filter { $0.offset != element }.map(\.element))
                        }
                        if lines[element].qty != nil {
                            edits.append {
                                var shorter = lines
                                shorter[element].qty = nil
                                $0.lines = .value(shorter)
                            }
                        }
                    }
                }
                if case .value(.object(let id, let name, let tier)) = given.customer {
                    edits.append { $0.customer = .value(.key(id)) }
                    if name != .absent && tier != .absent {
                        edits.append { $0.customer = .value(.object(id, name: name, tier: .absent)) }
                        edits.append { $0.customer = .value(.object(id, name: .absent, tier: tier)) }
                    }
                }
                for edit in edits {
                    var changed = syncs
                    edit(&changed[index].orders[position])
                    if changed != syncs { variants.append(changed) }
                }
            }
        }
        return variants
    }

    static func shrink(_ syncs: [Sync], failing: ([Sync]) async throws -> Bool) async throws -> [Sync] {
        var current = syncs
        var progress = true
        while progress {
            progress = false
            for variant in smaller(current) where try await failing(variant) {
                current = variant
                progress = true
                break
            }
        }
        return current
    }

    // MARK: - The model comparison

    @Test("random re-syncs with stubs and incomplete records leave the store and counts the model gives")
    func randomResyncsMatchTheModel() async throws {
        var failures = 0
        var dropped: [String: Int] = [:]
        var stubs = 0
        var refused = 0
        for seed in 1...200 {
            var generator = Generator(state: UInt64(seed))
            let syncs = generator.syncs()
            var model = Model()
            for sync in syncs {
                guard let (next, expected) = Self.apply(sync, to: model) else {
                    refused += 1
                    continue
                }
                model = next
                dropped.merge(expected.dropped, uniquingKeysWith: +)
                stubs += expected.stubs
            }
            guard try Self.firstMismatch(syncs) != nil else { continue }
            failures += 1
            if failures > 3 { continue }
            let minimal = try await Self.shrink(syncs) { try Self.firstMismatch($0) != nil }
            Issue.record("seed \(seed), shrunk:\n\(try Self.firstMismatch(minimal) ?? "(no longer fails)")")
        }
        #expect(failures == 0, "\(failures) of 200 seeds disagree with the model")
        // The sequences exercise what the suite is about.
        #expect(
            dropped["Order", default: 0] > 50 && dropped["Customer", default: 0] > 50
                && dropped["Line", default: 0] > 50
                && stubs > 50 && refused > 20,
            "dropped \(dropped), stubs \(stubs), responses refused \(refused)")
    }

    // MARK: - Whole against streamed

    static let batchSizes = [1, 64, 300, 1 << 22]

    /// The store after `history` (each populated whole), then `last` populated whole
    /// (`batchBytes` nil) or streamed, from a source that can be read again or not.
    static func outcome(
        _ history: [Sync], then last: Sync, batchBytes: Int?, reopens: Bool = true
    ) async throws -> AdversarialStreamTests.Outcome {
        let store = try RecordStore(inMemory: schema)
        for sync in history {
            _ = try? await store.populate(
                try JSONReader().read(json(sync.orders)), entity: "Order", options: options(sync))
        }
        let text = json(last.orders)
        let result: PopulationResult
        do {
            if let batchBytes {
                let data = Data(text.utf8)
                let population = ResponsePopulation(store: try #require(store.sqlite), options: options(last))
                let once = readingOnce(data, batchByteLimit: batchBytes)
                let open: (String?) throws(WebRecordError) -> JSONStreamReader = { keyPath throws(WebRecordError) in
                    reopens
                        ? JSONStreamReader(data: data, keyPath: keyPath, batchByteLimit: batchBytes) : try once(keyPath)
                }
                result = try await population.populate(streaming: open, entity: "Order", reopens: reopens)
            } else {
                result = try await store.populate(
                    try JSONReader().read(text), entity: "Order", options: options(last))
            }
        } catch let error as WebRecordError {
            return .init(
                rows: try AdversarialStreamTests.rows(of: store), counts: [:], recordIDs: [], failure: error.message)
        }
        return .init(
            rows: try AdversarialStreamTests.rows(of: store), counts: result.changesByEntity,
            recordIDs: result.records.map(\.rowID), failure: nil)
    }

    /// The first way the last sync of `syncs` streamed differs from it whole, or `nil`.
    static func firstStreamDifference(_ syncs: [Sync], refusals: inout [String]) async throws -> String? {
        guard let last = syncs.last else { return nil }
        let history = Array(syncs.dropLast())
        let whole = try await outcome(history, then: last, batchBytes: nil)
        let before = try await outcome(history, then: Sync(orders: []), batchBytes: nil).rows
        let shown = history.map { ($0.deleteOrphans ? "orphans " : "") + json($0.orders) }.joined(separator: "\n")
        let label = "after\n\(shown)\n\(last.deleteOrphans ? "orphans " : "")\(json(last.orders))"
        for size in batchSizes {
            let streamed = try await outcome(history, then: last, batchBytes: size)
            if streamed != whole {
                return "\(label)\nbatches of \(size) bytes (+ streamed, - whole):\n\(streamed.difference(from: whole))"
            }
            let once = try await outcome(history, then: last, batchBytes: size, reopens: false)
            if once.failure == nil {
                if once != whole {
                    return
                        "\(label)\nbatches of \(size) bytes, read once (+ streamed, - whole):\n\(once.difference(from: whole))"
                }
            } else if once.rows != before {
                return "\(label)\nbatches of \(size) bytes, read once: refused, and wrote something"
            } else if whole.failure == nil {
                refusals.append(once.failure ?? "")
            }
        }
        return nil
    }

    @Test("random re-syncs with stubs and incomplete records end the same streamed as whole")
    func randomResyncsEndTheSameStreamed() async throws {
        var failures = 0
        var refusals: [String] = []
        for seed in 1...200 {
            var generator = Generator(state: UInt64(seed))
            let syncs = generator.syncs()
            guard try await Self.firstStreamDifference(syncs, refusals: &refusals) != nil else { continue }
            failures += 1
            if failures > 3 { continue }
            let minimal = try await Self.shrink(syncs) { variant in
                var ignored: [String] = []
                return try await Self.firstStreamDifference(variant, refusals: &ignored) != nil
            }
            var ignored: [String] = []
            Issue.record(
                "seed \(seed), shrunk:\n\(try await Self.firstStreamDifference(minimal, refusals: &ignored) ?? "(no longer fails)")"
            )
        }
        #expect(failures == 0, "\(failures) of 200 seeds end otherwise streamed")
        // Some responses are of the kinds read again whole (a dropped order that sets its lines or
        // a `null`, a stub completed without its name in a later batch): read once, they are refused.
        #expect(!refusals.isEmpty, "no stream read once was refused")
        // A refusal from a stream read once names the record and why (Docs/Population.md).
        for refusal in Set(refusals) {
            #expect(refusal.contains("read") || refusal.contains("file"), "\(refusal)")
        }
    }
}
