import WebRecord

// The record classes are generated from Schemas/AppNet.json into Generated/ by
// `webrecord generate-swift Schemas/AppNet.json --base-class ADNRecord --output Generated`
// (Scripts/generate-swift-examples). This file holds what the schema cannot say.

/// The base of the App.net classes: a server registered for it serves them all.
class ADNRecord: Record {}
