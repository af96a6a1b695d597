#!/usr/bin/env python3
"""Extracts the ```swift blocks of README.md, Docs/*.md and the DocC catalog's pages into Swift files that the build
compiles, so that every code example in the documentation compiles against the current API.

    python3 Tests/DocSnippetsTests/generate.py           # (re)write the generated files
    python3 Tests/DocSnippetsTests/generate.py --check   # exit 1 if any is out of date

What it writes:

- Tests/ReadmeExample/main.swift: README.md's first ```swift block, verbatim, as the top-level
  code of the `readme-example` executable, beside the record classes `webrecord generate-swift`
  wrote into Tests/ReadmeExample/Generated. It must carry its own imports; DocSnippetsTests
  runs it against the bundled example data.
- Tests/DocSnippetsTests/Generated/<Doc>.swift: every other block, one per document. Each block
  becomes a method of `DocSnippetContext` (Tests/DocSnippetsTests/Prelude.swift), whose
  properties (`store`, `post`, `data`, ...) and the prelude's free functions and classes are
  what a snippet may use without declaring it. The method is `async` when the block awaits,
  so that a block written for synchronous code calls the synchronous overloads. The block's
  `import` lines move to the top of the file. Types a block declares are local to its method, so blocks never collide. A block
  that declares a protocol goes in an enum of its own instead, and one that declares an
  extension at file scope, as written. A block that starts with `#if canImport(UIKit)` (or
  SwiftUI, AppKit) builds only on Apple platforms: it goes at file scope as written, imports
  included, and the Linux build skips it.

Only fences whose info string is exactly `swift` are extracted. A block that is deliberately
not compilable Swift takes another info string: `sh`, `json`, `sql`, `text`, or
`swift-fragment` for a fragment of Swift (sparingly; never for an API example).

Standard library only, so it runs wherever python3 does.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
GENERATED = ROOT / "Tests" / "DocSnippetsTests" / "Generated"
README_EXAMPLE = ROOT / "Tests" / "ReadmeExample" / "main.swift"
COMMAND = "python3 Tests/DocSnippetsTests/generate.py"

OPENING = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^`]*)$")
CLOSING = re.compile(r"^[ \t]*```[ \t]*$")
IMPORT = re.compile(r"^(?:@testable\s+)?import\s+\w+")
TOP_LEVEL_NAME = re.compile(r"^(?:let|var)\s+([A-Za-z_][A-Za-z0-9_]*)\b")
PROTOCOL = re.compile(r"^(?:(?:public|internal|fileprivate|private)\s+)?protocol\s")
AWAIT = re.compile(r"\bawait\b")
EXTENSION = re.compile(r"^(?:(?:public|internal|fileprivate|private)\s+)?extension\s")
PLATFORM_ONLY = re.compile(r"^#if canImport\((UIKit|SwiftUI|AppKit)\)")


def documents():
    """README.md, then Docs/*.md by name, then the DocC catalog's own pages."""
    catalog = ROOT / "Sources" / "WebRecord" / "WebRecord.docc"
    return [ROOT / "README.md"] + sorted((ROOT / "Docs").glob("*.md")) + sorted(catalog.glob("*.md"))


def swift_blocks(path):
    """The ```swift blocks of a Markdown file, each as a list of lines with the fence's
    indentation removed."""
    blocks = []
    lines = path.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        opening = OPENING.match(lines[index])
        index += 1
        if not opening:
            continue
        indent = opening.group("indent")
        body = []
        while index < len(lines) and not CLOSING.match(lines[index]):
            line = lines[index]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        index += 1  # the closing fence
        if opening.group("info").strip() == "swift":
            blocks.append(body)
    return blocks


def header(source):
    return [
        f"// Generated from {source} by {COMMAND}: do not edit.",
        "// Edit the document, then run that command again. The documents' code keeps their layout:",
        "// swift-format-ignore-file",
        "",
    ]


def snippet_file(path, blocks):
    """The Swift file that compiles a document's blocks."""
    source = path.relative_to(ROOT).as_posix()
    stem = re.sub(r"[^A-Za-z0-9]", "", path.stem)
    imports = ["import Foundation", "#if canImport(FoundationNetworking)", "import FoundationNetworking",
               "#endif", "import WebRecord"]
    bodies = []
    for number, block in enumerate(blocks, start=1):
        code = []
        platform_only = bool(block) and PLATFORM_ONLY.match(next((line for line in block if line.strip()), ""))
        for line in block:
            if IMPORT.match(line) and not platform_only:
                statement = " ".join(line.split())
                if statement not in imports:
                    imports.append(statement)
            else:
                code.append(line)
        while code and not code[0].strip():
            code.pop(0)
        while code and not code[-1].strip():
            code.pop()
        name = (stem.lower() if stem.isupper() else stem[0].lower() + stem[1:]) + str(number)
        bodies.append(f"// {source}, block {number}")
        if platform_only or any(EXTENSION.match(line) for line in code):
            bodies += code
        elif any(PROTOCOL.match(line) for line in code):
            bodies.append(f"enum {stem}{number} {{")
            bodies += indented(code, 4)
            bodies.append("}")
        else:
            names = []
            for line in code:
                match = TOP_LEVEL_NAME.match(line)
                if match and match.group(1) not in names:
                    names.append(match.group(1))
            bodies.append("extension DocSnippetContext {")
            effects = "async throws" if any(AWAIT.search(line) for line in code) else "throws"
            bodies.append(f"    func {name}() {effects} {{")
            bodies += indented(code, 8)
            if names:
                bodies.append("        // Every name the block declares is used, as a reader would go on to use it.")
                bodies += [f"        _ = {each}" for each in names]
            bodies.append("    }")
            bodies.append("}")
        bodies.append("")
    return "\n".join(header(source) + imports + [""] + bodies)


def indented(lines, width):
    return [(" " * width + line) if line.strip() else "" for line in lines]


def readme_example(block):
    """README.md's first block, as a program."""
    code = list(block)
    while code and not code[-1].strip():
        code.pop()
    return "\n".join(header("README.md (its first swift block)") + code) + "\n"


def expected_files():
    """Every generated file, path to text."""
    files = {}
    for path in documents():
        blocks = swift_blocks(path)
        if path.name == "README.md":
            if not blocks:
                sys.exit("README.md has no swift block: its first one is the runnable library example")
            files[README_EXAMPLE] = readme_example(blocks[0])
            blocks = blocks[1:]
        if blocks:
            files[GENERATED / f"{path.stem}.swift"] = snippet_file(path, blocks)
    return files


def main(arguments):
    check = arguments == ["--check"]
    if arguments and not check:
        sys.exit(f"usage: {COMMAND} [--check]")
    files = expected_files()
    stale = sorted(set(GENERATED.glob("*.swift")) - set(files))
    differing = [path for path, text in files.items()
                 if not path.exists() or path.read_text(encoding="utf-8") != text]
    if check:
        if not stale and not differing:
            return 0
        for path in differing:
            print(f"out of date: {path.relative_to(ROOT).as_posix()}")
        for path in stale:
            print(f"no longer generated: {path.relative_to(ROOT).as_posix()}")
        print(f"The swift blocks of README.md and Docs/*.md changed. Run: {COMMAND}")
        return 1
    for path in stale:
        path.unlink()
    for path in differing:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT).as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
