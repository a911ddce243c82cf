import Foundation

// `callscope` — replays recorded calls through the CallScope engine and benchmarks it.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "replay": try ReplayCommand(arguments: Array(arguments.dropFirst())).run()
    case "bench": try BenchCommand(arguments: Array(arguments.dropFirst())).run()
    case "frames": try FramesCommand(arguments: Array(arguments.dropFirst())).run()
    case "evaluate": try EvaluateCommand(arguments: Array(arguments.dropFirst())).run()
    case "call": try CallCommand(arguments: Array(arguments.dropFirst())).run()
    case nil, "help", "-h", "--help": print(Usage.text)
    default: throw UsageError("unknown command '\(arguments[0])'")
    }
} catch let error as UsageError {
    FileHandle.standardError.write(Data("callscope: \(error.message)\n\nRun 'callscope --help' for usage.\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("callscope: \(error)\n".utf8))
    exit(1)
}
