import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A second adversarial round over streamed populations (Docs/Population.md, "Large responses:
/// streamed population"): every response here, streamed at every batch size, must leave the
/// store the whole response leaves, or be refused with nothing written when it cannot be read
/// again. It reuses the first round's support (`AdversarialStreamTests`).
@Suite("Population: adversarial streams, second round")
struct AdversarialStreamTests2 {
    typealias A = AdversarialStreamTests

    static func data(_ elements: [String]) -> String { A.data(elements) }

    // MARK: - Self-inverse relationships

    static let people = A.schema(
        #"""
        {"entities": {
          "Person": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {
              "spouse": {"destination": "Person", "inverse": "spouse"},
              "friends": {"destination": "Person", "toMany": true, "inverse": "friends"},
              "ranked": {"destination": "Person", "toMany": true, "ordered": true, "inverse": "ranked"},
              "pals": {"destination": "Person", "toMany": true, "ordered": true, "inverse": "pals", "merge": "union"}}}
        }}
        """#)

    @Test("A self-inverse to-one claimed by records in different batches ends as whole")
    func selfInverseToOneAcrossBatches() async throws {
        let cases: [[String]] = [
            [#"{"id": 1, "spouse": 2}"#, #"{"id": 2, "spouse": 3}"#, #"{"id": 3, "spouse": 1}"#],
            [#"{"id": 1, "spouse": 2}"#, #"{"id": 3, "spouse": 2}"#, #"{"id": 1, "spouse": 2}"#],
            [#"{"id": 1, "spouse": 2}"#, #"{"id": 2, "spouse": null}"#, #"{"id": 3, "spouse": 1}"#],
            [#"{"id": 1, "spouse": {"id": 2, "spouse": 3}}"#, #"{"id": 3, "name": "c"}"#, #"{"id": 1}"#],
            [#"{"id": 2, "spouse": 1}"#, #"{"id": 1, "spouse": 2}"#, #"{"id": 4, "spouse": 1}"#, #"{"id": 2, "spouse": 3}"#],
        ]
        let earlier = Self.data([#"{"id": 1, "spouse": 5}"#, #"{"id": 2, "spouse": 6}"#, #"{"id": 3, "spouse": 7}"#])
        for elements in cases {
            try await A.expectSameAtEveryBatchSize(Self.data(elements), schema: Self.people, entity: "Person")
            try await A.expectSameAtEveryBatchSize(
                Self.data(elements), after: earlier, schema: Self.people, entity: "Person")
        }
    }

    static let selfInverseListCases: [[String]] = [
            [#"{"id": 1, "R": [2, 3]}"#, #"{"id": 2, "R": [4]}"#, #"{"id": 1, "R": [3, 2]}"#],
            [#"{"id": 1, "R": [2]}"#, #"{"id": 2, "R": [3, 1]}"#, #"{"id": 3, "R": [1, 2]}"#, #"{"id": 1, "R": [3]}"#],
            [#"{"id": 1, "R": [2, 3]}"#, #"{"id": 2, "R": []}"#, #"{"id": 3, "R": null}"#, #"{"id": 2, "R": [1]}"#],
            [#"{"id": 1, "R": [{"id": 2, "R": [3]}]}"#, #"{"id": 3, "R": [1]}"#, #"{"id": 2, "R": [1, 3]}"#],
        ]

    @Test("Self-inverse to-many lists, ordered and not, replaced and united across batches, end as whole",
        arguments: ["friends", "ranked", "pals"], 0..<4)
    func selfInverseToManyAcrossBatches(relationship: String, index: Int) async throws {
        let elements = Self.selfInverseListCases[index]
        let earlier = Self.data([#"{"id": 1, "R": [5, 2]}"#, #"{"id": 3, "R": [5]}"#])
        let text = Self.data(elements).replacingOccurrences(of: "\"R\"", with: "\"\(relationship)\"")
        let prior = earlier.replacingOccurrences(of: "\"R\"", with: "\"\(relationship)\"")
        try await A.expectSameAtEveryBatchSize(text, schema: Self.people, entity: "Person")
        try await A.expectSameAtEveryBatchSize(text, after: prior, schema: Self.people, entity: "Person")
    }
}

extension AdversarialStreamTests2 {
    @Test func debugProbe() async throws {
        let text = Self.data([#"{"id": 1, "ranked": [{"id": 2, "ranked": [3]}]}"#, #"{"id": 3, "ranked": [1]}"#, #"{"id": 2, "ranked": [1, 3]}"#])
        for size: Int? in [nil, 1] {
            let o = try await A.populate(text, schema: Self.people, entity: "Person", batchBytes: size)
            print("DEBUG \(String(describing: size))\n\(o)")
        }
    }
}
