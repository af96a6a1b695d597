import Foundation

/// What stands in the way of reading a path as a file, in words: the one place that tells a
/// missing file from a dangling symbolic link, a directory, a device or an unreadable file, for
/// every command and API that reads one (a schema, a Core Data model, a response file).
package enum FileProblem {
    /// Why `path` cannot be read as a regular file, or nil when it can be opened for reading
    /// (a regular file, or a pipe such as a shell's `<(...)`).
    ///
    /// For example: `no such file`, `it is a dangling symbolic link (its target 'x.json' is
    /// missing)`, `it is a directory, not a file`, `it is a character device, not a file`,
    /// `permission denied`.
    package static func reason(forReading path: String) -> String? {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? "no such file" : String(cString: strerror(errno))
        }
        var status = stat()
        if stat(path, &status) != 0 {
            if errno == ENOENT, (link.st_mode & S_IFMT) == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                return "it is a dangling symbolic link (its target '\(target)' is missing)"
            }
            return String(cString: strerror(errno))
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return "it is a directory, not a file"
        case S_IFCHR: return "it is a character device, not a file"
        case S_IFBLK: return "it is a block device, not a file"
        case S_IFSOCK: return "it is a socket, not a file"
        default: break
        }
        guard access(path, R_OK) == 0 else {
            return errno == EACCES ? "permission denied" : String(cString: strerror(errno))
        }
        return nil
    }
}
