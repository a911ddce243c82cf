import Foundation

// `callscope`: replays recorded calls through the CallScope engine, scores and benchmarks it.

/// Every subcommand, in the order `callscope --help` lists them.
enum Commands {
    static var all: [any Command.Type] { [ReplayCommand.self, EvaluateCommand.self, BenchCommand.self, ReportCommand.self, AnalyzeCommand.self, FramesCommand.self, VideoMarkerClipCommand.self, DiscoverCommand.self, ReadBenchCommand.self, CallCommand.self, ProbeCommand.self, PresenceCommand.self] }
}

func overview() -> String {
    var text = "callscope — see what a video SDK would have reported for a call.\n\nUSAGE\n  callscope COMMAND [OPTIONS]\n\nCOMMANDS\n"
    var rows: [(name: String, summary: String)] = []
    for command in Commands.all { rows.append((command.name, command.summary)) }
    rows.append(("help", "This text, or `callscope help COMMAND` for one command."))
    var width = 0
    for row in rows { width = max(width, row.name.count + 2) }
    for row in rows { text += "  " + row.name.padding(toLength: width, withPad: " ", startingAt: 0) + row.summary + "\n" }
    return text
}

func standardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// Runs the command line and returns its exit code.
func main(_ arguments: [String]) -> ExitCode {
    guard let name = arguments.first, !["help", "-h", "--help"].contains(name) else {
        if arguments.count > 1, let command = Commands.all.first(where: { $0.name == arguments[1] }) {
            print(command.help)
            return .success
        }
        if arguments.count > 1 {
            standardError("callscope: no command '\(arguments[1])'\n\n\(overview())")
            return .usage
        }
        print(overview())
        return .success
    }
    guard let command = Commands.all.first(where: { $0.name == name }) else {
        standardError("callscope: unknown command '\(name)'. Run 'callscope --help' for the list.\n")
        return .usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(command.help)
        return .success
    }
    do {
        return try command.init(arguments: rest).run()
    } catch let error as UsageError {
        standardError("callscope \(name): \(error.message). Run 'callscope help \(name)' for usage.\n")
        return .usage
    } catch {
        standardError("callscope \(name): \(error)\n")
        return .failure
    }
}

exit(main(Array(CommandLine.arguments.dropFirst())).rawValue)
