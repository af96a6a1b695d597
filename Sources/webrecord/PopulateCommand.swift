import Foundation
import WebRecord

/// `webrecord populate`: each SOURCE is one response, populated in one transaction.
enum PopulateCommand: Subcommand {
    static let spec = CommandSpec(
        name: "populate",
        abstract: "Populate a store from JSON responses (files or http(s) URLs).",
        discussion: """
            Each source is one response, populated in its own transaction: a source that fails
            leaves the store as it was before it, and the sources before it stay populated.
            The store is created when it does not exist.
            """,
        options: [
            OptionSpec(
                name: "--schema", valueName: "schema",
                help: "A schema file. Repeat it to load several files as one schema.",
                isRequired: true, isRepeatable: true, isFile: true),
            OptionSpec(
                name: "--db", valueName: "db",
                help: "The store: a SQLite file, created if missing, or a postgresql:// URL.", isRequired: true,
                isFile: true),
            OptionSpec(
                name: "--entity", valueName: "name", help: "The entity of the records in each response.",
                isRequired: true),
            OptionSpec(
                name: "--key-path", valueName: "key-path",
                help: "Where the records are in a response; overrides the entity's keyPathForResponseObject."),
            OptionSpec(name: "--json", valueName: nil, help: "Print the summary as one JSON object."),
            OptionSpec(name: "--quiet", valueName: nil, help: "Print no summary, warnings or progress; errors only."),
            OptionSpec(
                name: "--header", valueName: "header",
                help: "An HTTP header sent with URL sources, as 'Name: value'. May be repeated.",
                isRepeatable: true),
            OptionSpec(
                name: "--timeout", valueName: "seconds",
                help: "How long each request of a URL source may take, in seconds: each page and each retry."),
            OptionSpec(
                name: "--max-body-size", valueName: "bytes",
                help: "The most bytes one response of a URL source may hold, decoded (default 268435456, 256 MiB)."),
            OptionSpec(
                name: "--paginate", valueName: "kind",
                help:
                    "Follow pages from each URL source: next-url:KEYPATH[:TOTALKEYPATH], link-header, cursor:KEYPATH:PARAM[:TOTALKEYPATH], has-more:FLAGKEYPATH:KEYPATH:PARAM[:TOTALKEYPATH], page:PARAM[:TOTALKEYPATH] or offset:PARAM:LIMITPARAM:LIMIT[:TOTALKEYPATH]."
            ),
            OptionSpec(
                name: "--max-pages", valueName: "n", help: "Request at most N pages per URL source (default 10000)."),
            OptionSpec(
                name: "--delete-orphans", valueName: nil,
                help: "After the last source or page, delete the entity's records that none of them contained."),
        ],
        arguments: [
            ArgumentSpec(
                name: "source", help: "A JSON file, '-' for standard input, or an http(s) URL.", isRepeatable: true)
        ],
        examples: [
            "webrecord populate --schema Schemas/AppNet.json --db appnet.sqlite --entity Post Examples/AppNet/posts.json"
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let location = try StoreAccess.storeLocation(arguments.value("--db"), command: spec)
        let fetch = try URLFetchOptions(
            headers: arguments.values("--header"), timeout: arguments.value("--timeout"),
            maximumBodySize: arguments.value("--max-body-size"))
        let sources = arguments.positionals.map(Source.init)
        let json = arguments.flag("--json")
        let quiet = arguments.flag("--quiet")
        // Every usage error is found before anything is read or opened.
        let paging = try PagingArguments(
            paginate: arguments.value("--paginate"), maxPages: arguments.value("--max-pages"),
            deleteOrphans: arguments.flag("--delete-orphans"), showsProgress: !json && !quiet && Output.isErrorTerminal)
        if paging.pagination != nil, let unpaged = sources.first(where: { !$0.isURL }) {
            // A file's next link names no page that can be fetched: with --delete-orphans, its
            // first page alone would be taken for the whole list.
            throw UsageError(
                message:
                    "--paginate follows the pages of http(s) URL sources, and '\(Redaction.redacted(url: unpaged.name))' "
                    + "is \(unpaged.isStandardInput ? "standard input" : "a file"), read as one response; give the first "
                    + "page's URL, or populate each page's file as a source of its own without --paginate",
                command: spec)
        }
        let schema: Schema
        do {
            schema = try StoreAccess.loadSchema(arguments.values("--schema"))
        } catch let failure as Failure {
            // Nothing was tried, and nothing saved: --json still prints its one object.
            if json {
                let report = PopulationFailure(
                    message: failure.message, code: "invalidSchema", summary: nil)
                Output.out(bytes: report.json.serializedBytes(prettyPrinted: true) + [UInt8(ascii: "\n")])
            }
            throw failure
        }
        let entity = try StoreAccess.requireEntity(arguments.value("--entity") ?? "", in: schema)
        var options = PopulationOptions()
        options.keyPath = arguments.value("--key-path")
        if let keyPath = options.keyPath, !keyPath.isEmpty,
            keyPath.split(separator: ".", omittingEmptySubsequences: false).contains("")
        {
            throw UsageError(
                message:
                    "invalid --key-path '\(keyPath)'; expected names separated by single dots ('' for the response itself)",
                command: spec)
        }
        options.orphanDeletionFollows = paging.deleteOrphans

        let summary: PopulationSummary
        do {
            summary = try await populate(
                sources, entity: entity.name, schema: schema, location: location, options: options,
                fetch: fetch, paging: paging)
        } catch let failure as PopulationFailure {
            // DESIGN §5: a failed run with --json still prints one object on stdout.
            if json { Output.out(bytes: failure.json.serializedBytes(prettyPrinted: true) + [UInt8(ascii: "\n")]) }
            throw Failure(failure.message)
        }

        if json {
            Output.out(bytes: summary.json.serializedBytes(prettyPrinted: true) + [UInt8(ascii: "\n")])
        } else if !quiet {
            Output.out(summary.text(entity: entity.name))
            for warning in summary.warnings {
                Output.err("\(Tool.name): warning: \(warning.message) [\(warning.code)]\n")
            }
        }
        return ExitStatus.success
    }

    /// Populates every source in turn. A file or standard input is read before the store is
    /// opened; a URL is requested through the store, and a failed request removes a store file
    /// nothing was committed to: a first source that fails leaves no new file behind.
    ///
    /// - Throws: ``PopulationFailure``, saying what was saved before the failure.
    private static func populate(
        _ sources: [Source], entity: String, schema: Schema, location: StoreLocation, options: PopulationOptions,
        fetch: URLFetchOptions, paging: PagingArguments
    ) async throws -> PopulationSummary {
        var state = RunState(summary: PopulationSummary(schema: schema))
        do {
            try await populate(
                sources, entity: entity, schema: schema, location: location, options: options, fetch: fetch,
                paging: paging, state: &state)
        } catch {
            throw PopulationFailure(
                message: (error as? Failure)?.message ?? Failure.oneLine("\(error)"),
                code: state.failureCode ?? PopulationFailure.code(of: error), savedSources: state.savedSources,
                failedSource: state.failedSource.map { ($0, state.pagesSaved) }, orphansDeleted: false,
                summary: state.summary)
        }
        return state.summary
    }

    /// What a run has done so far, for the report of its failure.
    private struct RunState {
        var summary: PopulationSummary
        var savedSources: [String] = []
        var failedSource: String?
        var pagesSaved = 0
        var failureCode: String?
    }

    private static func populate(
        _ sources: [Source], entity: String, schema: Schema, location: StoreLocation, options: PopulationOptions,
        fetch: URLFetchOptions, paging: PagingArguments, state: inout RunState
    ) async throws {
        var store: RecordStore?
        // Closed before the command returns, success or not: the WAL is checkpointed into the
        // file, so that the file alone is the whole store once the command has exited.
        defer { store?.close() }
        var kept = ContainedRows()
        var pagingIncomplete = false
        // The first URL source not paged whose response names a next page, and what names it: a
        // file is taken as given, as the library takes a response it populates.
        var unpagedNext: (source: String, sign: String, paginate: String)?
        var last: (records: [Record], response: JSONValue)?
        let progress = ProgressLine(isEnabled: paging.showsProgress, sources: sources.count)
        // The library reports each response as it goes: a URL's download, every population.
        var options = options
        if progress.isEnabled { options.progress = { progress.show($0) } }
        for (index, source) in sources.enumerated() {
            state.failedSource = source.name
            state.pagesSaved = 0
            if case .url(let url) = source.kind {
                progress.begin(source: index, paged: paging.pagination != nil)
                // A URL goes through the library's request API, paged or not, as a library
                // user's request would.
                let opened = try store ?? StoreAccess.open(location, schema: schema)
                store = opened
                // What earlier sources contained is spared by the deletes this one's links start.
                var population = options
                population.sparedByTheRun = kept
                let request = URLSource.requestOptions(for: url, population: population, fetch: fetch)
                guard let pagination = paging.pagination else {
                    let result: RequestResult<Record>
                    do {
                        result = try await opened.startRequest(
                            entity: entity, urn: url.absoluteString, options: request)
                    } catch {
                        state.failureCode = PopulationFailure.code(of: error)
                        progress.finish()
                        throw Failure(describe(error, of: source) + savedNote(index))
                    }
                    state.summary.add(
                        PopulationResult(
                            records: result.records, debugger: result.debugger, changesByEntity: result.changesByEntity)
                    )
                    kept.formUnion(result.containedRowIDs)
                    last = (result.records, result.response.body)
                    if unpagedNext == nil, let next = nextPage(named: result.response) {
                        unpagedNext = (source.name, next.sign, next.paginate)
                    }
                    progress.completed(records: state.summary.records)
                    state.savedSources.append(source.name)
                    continue
                }
                let pagingOptions = PagingOptions(
                    request: request, pagination: pagination, maximumPages: paging.maximumPages)
                var pages = 0
                do {
                    for try await page in opened.pages(entity: entity, urn: url.absoluteString, options: pagingOptions)
                    {
                        pages += 1
                        if let end = page.end {
                            state.summary.paging.append((source.name, pages, end))
                            if !end.isComplete { pagingIncomplete = true }
                        }
                        state.summary.add(
                            PopulationResult(
                                records: page.records, debugger: page.result.debugger,
                                changesByEntity: page.result.changesByEntity))
                        kept.formUnion(page.result.containedRowIDs)
                        last = (page.records, page.result.response.body)
                        progress.completed(records: state.summary.records, paging: page.progress)
                        state.pagesSaved = pages
                    }
                } catch {
                    state.failureCode = PopulationFailure.code(of: error)
                    progress.finish()
                    // The library's message says which pages were saved, and that no orphan was deleted.
                    throw Failure("\(source.name): \(StoreAccess.describe(error))" + savedNote(index))
                }
                state.savedSources.append(source.name)
                continue
            }
            progress.begin(source: index, paged: false)
            let open: (String?) throws(WebRecordError) -> JSONStreamReader
            let size: Int?
            do {
                (open, size) = try source.opener()
            } catch let failure as Failure {
                state.failureCode = "notFound"
                progress.finish()
                throw Failure(failure.message + savedNote(index))
            }
            let opened = try store ?? StoreAccess.open(location, schema: schema)
            store = opened
            // A file or standard input is streamed: its records are read, mapped and written a
            // batch at a time, and never kept, so that memory stays bounded whatever its size.
            var streamed = options
            streamed.returnsRecords = false
            streamed.sparedByTheRun = kept
            do {
                let result = try await opened.database.populate(
                    streaming: open, expectedBytes: size, entity: entity, options: streamed)
                state.summary.add(result)
                kept.formUnion(result.containedRowIDs)
                last = ([], result.debugger.responseObject ?? .null)
                progress.completed(records: state.summary.records)
            } catch {
                state.failureCode = PopulationFailure.code(of: error)
                progress.finish()
                throw Failure(Source.describe(error, of: source) + savedNote(index))
            }
            state.savedSources.append(source.name)
        }
        state.failedSource = nil
        progress.finish()
        if paging.deleteOrphans, pagingIncomplete {
            state.summary.warnings.append(
                PopulationSummary.Warning(
                    code: "invalidResponseFormat",
                    message:
                        "\(entity): paging ended before the server's last page (\(state.summary.paging.map(\.end.rawValue).joined(separator: ", "))); no orphans were deleted"
                ))
        } else if paging.deleteOrphans, let unpaged = unpagedNext {
            // One page of a longer list: the records of the pages it names are no orphans.
            state.summary.warnings.append(
                PopulationSummary.Warning(
                    code: "invalidResponseFormat",
                    message:
                        "\(entity): \(unpaged.source) names a next page (\(unpaged.sign)): it is one page of a longer "
                        + "list, so no orphans were deleted; --paginate \(unpaged.paginate) follows its pages"))
        } else if paging.deleteOrphans, let store, let last {
            var orphanOptions = options
            orphanOptions.deleteOrphans = .all
            let debugger = Debugger(initialEntity: entity)
            do {
                let deleted = try await store.database.deleteOrphans(
                    of: entity, keeping: kept, results: last.records, response: last.response, options: orphanOptions,
                    debugger: debugger)
                state.summary.addDeleted(deleted)
                state.summary.addWarnings(of: debugger)  // an orphan a deny rule kept, say
            } catch {
                state.failureCode = PopulationFailure.code(of: error)
                throw Failure("deleting orphans: \(StoreAccess.describe(error)); every source was saved")
            }
        }
    }

    /// What names a next page in a response that was not paged, and the `--paginate` value
    /// that would follow it (the library's ``Pagination/suggestion(for:)``); nil when nothing does.
    private static func nextPage(named response: ServerResponse) -> (sign: String, paginate: String)? {
        guard let (sign, _) = Pagination.suggestion(for: response) else { return nil }
        guard sign.hasPrefix("'"), sign.hasSuffix("'"), sign.count > 2 else { return (sign, "link-header") }
        let keyPath = String(sign.dropFirst().dropLast())
        let member = keyPath.split(separator: ".").last.map(String.init) ?? keyPath
        return (sign, member.lowercased().contains("cursor") ? "cursor:\(keyPath):PARAM" : "next-url:\(keyPath)")
    }

    /// A URL source's failure: the population's names the source; the server's (no response
    /// arrived) names the URL itself, its secrets redacted, and no entity.
    private static func describe(_ failure: WebRecordError, of source: Source) -> String {
        guard failure.debugger?.responseObject == nil else {
            return "\(source.name): \(StoreAccess.describe(failure))"
        }
        var error = failure
        error.entity = nil
        return StoreAccess.describe(error)
    }

    /// "; the 2 sources before it were saved", or nothing for the first source.
    private static func savedNote(_ index: Int) -> String {
        switch index {
        case 0: ""
        case 1: "; the source before it was saved"
        default: "; the \(index) sources before it were saved"
        }
    }
}

/// One SOURCE argument: a file, standard input or an http(s) URL.
struct Source {
    enum Kind {
        case file(String)
        case standardInput
        case url(URL)
    }

    /// The argument as given, for messages; a URL's secrets (password, token parameters) redacted.
    var name: String
    var kind: Kind

    /// Whether the source is an http(s) URL, requested (and paged, with `--paginate`) rather than read.
    var isURL: Bool {
        if case .url = kind { return true }
        return false
    }

    /// Whether the source is standard input (`-`).
    var isStandardInput: Bool {
        if case .standardInput = kind { return true }
        return false
    }

    init(_ argument: String) {
        name = argument
        let lowered = argument.lowercased()
        if argument == "-" {
            kind = .standardInput
        } else if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: argument) {
            kind = .url(url)
            name = Redaction.redacted(url: argument)
        } else {
            kind = .file(argument)
        }
    }

    /// What opens a file or standard input for streaming (a URL source is requested instead,
    /// see ``URLSource``).
    ///
    /// - Returns: what opens the source for a key path, from its first byte each time (standard
    ///   input and a pipe are kept as they are read, ``SpooledInput``), and the source's size
    ///   when known.
    /// - Throws: ``Failure`` naming the source when it does not exist or is a directory.
    func opener() throws -> (open: (String?) throws(WebRecordError) -> JSONStreamReader, size: Int?) {
        switch kind {
        case .file(let path):
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                // `file:///etc/passwd`, `ftp://host/x`: a URL of a scheme that is never requested;
                // `http://u:p@ss@host`: an http URL that does not parse.
                if let separator = path.range(of: "://"), !path[..<separator.lowerBound].isEmpty,
                    path[..<separator.lowerBound].allSatisfy({
                        $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0))
                    })
                {
                    let scheme = path[..<separator.lowerBound].lowercased()
                    throw Failure(
                        "\(Redaction.redacted(url: name)): "
                            + (["http", "https"].contains(scheme)
                                ? "not a valid URL (percent-encode '@', '/', '?', '#' and spaces in a user name or password)"
                                : "no such file, and not an http or https URL: webrecord requests only http and https URLs")
                    )
                }
                throw Failure("\(name): no such file")
            }
            if isDirectory.boolValue { throw Failure("\(name): is a directory") }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            // A named pipe, which gives its bytes once, has no size, and is kept as it is read.
            let isRegular = attributes?[.type] as? FileAttributeType == .typeRegular
            return (JSONStreamReader.opener(forFileAtPath: path), isRegular ? attributes?[.size] as? Int : nil)
        case .standardInput:
            let input = SpooledInput.standardInput()
            return ({ keyPath throws(WebRecordError) in try input.reader(keyPath: keyPath) }, nil)
        case .url:
            throw Failure("\(name): a URL source is requested, not read")
        }
    }

    /// A file's or standard input's failure: malformed JSON with its line and column, a file
    /// that cannot be read, or the population's.
    static func describe(_ error: WebRecordError, of source: Source) -> String {
        if error.code == .invalidJSON {
            return "\(source.name): \(error.location.map { "\($0): " } ?? "")malformed JSON: \(error.message)"
        }
        return "\(source.name): \(StoreAccess.describe(error))"
    }
}
