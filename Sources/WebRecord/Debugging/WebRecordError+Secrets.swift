extension WebRecordError {
    /// The error with each of `secrets` (the values of a request's credentials, see
    /// ``Redaction/secretValues(headers:url:)``) taken out of its message, of the strings of its
    /// value and of its problems: a server may echo a credential, which an error would quote.
    func hidingSecrets(_ secrets: [String]) -> WebRecordError {
        guard !secrets.isEmpty else { return self }
        var error = self
        error.message = Redaction.scrubbing(message, secrets: secrets)
        if let value { error.value = Redaction.scrubbing(value, secrets: secrets) }
        error.problems = problems.map { $0.hidingSecrets(secrets) }
        return error
    }
}
