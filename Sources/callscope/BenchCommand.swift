/// `callscope bench` (filled in below).
struct BenchCommand {
    init(arguments: [String]) throws {}
    func run() throws {}
}
