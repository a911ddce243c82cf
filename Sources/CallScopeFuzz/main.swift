#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// `callscope-fuzz TARGET [libFuzzer options] [CORPUS...]`
//
// Built with `-sanitize=fuzzer,address` (see Scripts/fuzz.sh), this runs libFuzzer on TARGET.
// SwiftPM on Linux links an executable's `main` as `<Target>_main` and aliases `main` to it, so
// libFuzzer's own `main` is not used: this one finds `LLVMFuzzerRunDriver` (exported with
// `-Xlinker --export-dynamic`) and hands it the target. Built normally, it runs every file given
// (or every file in the directories given) through TARGET once: the regression mode the tests
// and CI use for inputs that once crashed.

typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
typealias FuzzDriver = @convention(c) (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>, FuzzCallback) -> Int32

/// The target chosen on the command line; read by the C callback, which cannot capture.
nonisolated(unsafe) var selectedTarget = FuzzTarget.timeline

/// libFuzzer's entry point for one input (also what a plain `-sanitize=fuzzer` link expects).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
    FileHandle.standardError.write(Data("usage: callscope-fuzz \(names) [libFuzzer options] [CORPUS_DIR|FILE...]\n".utf8))
    exit(64)
}
selectedTarget = target

if let symbol = dlsym(dlopen(nil, RTLD_NOW), "LLVMFuzzerRunDriver") {
    let driver = unsafeBitCast(symbol, to: FuzzDriver.self)
    // libFuzzer sees argv without the target name.
    var driverArguments = [arguments[0]] + arguments.dropFirst(2)
    var cStrings: [UnsafeMutablePointer<CChar>?] = driverArguments.indices.map { strdup(driverArguments[$0]) } + [nil]
    var argc = Int32(driverArguments.count)
    let status = cStrings.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return driver(&argc, &argv, fuzzOneInput)
    }
    driverArguments.removeAll()
    exit(status)
}

// Regression mode: no libFuzzer linked in.
var paths: [String] = []
for argument in arguments.dropFirst(2) where !argument.hasPrefix("-") {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
        FileHandle.standardError.write(Data("callscope-fuzz: \(argument): no such file or directory\n".utf8))
        exit(66)
    }
    if isDirectory.boolValue {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            var nested: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument + "/" + name, isDirectory: &nested), !nested.boolValue { paths.append(argument + "/" + name) }
        }
    } else {
        paths.append(argument)
    }
}
for path in paths {
    guard let data = FileManager.default.contents(atPath: path) else { continue }
    target.run([UInt8](data))
}
print("callscope-fuzz \(target.rawValue): \(paths.count) input\(paths.count == 1 ? "" : "s") ran without a crash (no libFuzzer in this build: regression mode)")
