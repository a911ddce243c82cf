import SwiftUI

/// Join a room, watch everyone in it. The Janus URL and room come from the text fields.
@main
struct CallScopeExampleApp: App {
    @State private var call = CallModel()

    var body: some Scene {
        WindowGroup { CallScreen(call: call) }
    }
}

/// The room form, then one tile per subscribed stream.
struct CallScreen: View {
    let call: CallModel
    // Janus's HTTP API is plain HTTP on port 8088: see README.md about App Transport Security.
    @State private var janusURL = "http://192.168.1.10:8088/janus"
    @State private var room = "1234"

    var body: some View {
        VStack {
            if call.isJoined {
                ScrollView {
                    ForEach(call.tiles) { tile in
                        SubscriberTileView(tile: tile).aspectRatio(16 / 9, contentMode: .fit)
                    }
                }
                Button("Leave") { Task { await call.leave() } }
            } else {
                TextField("Janus URL", text: $janusURL).textFieldStyle(.roundedBorder).autocorrectionDisabled()
                TextField("Room", text: $room).textFieldStyle(.roundedBorder).keyboardType(.numberPad)
                Button("Join") {
                    guard let url = URL(string: janusURL), let room = UInt64(room) else { return }
                    Task { await call.join(url: url, room: room) }
                }
            }
            if let error = call.lastError { Text(error).foregroundStyle(.red).font(.footnote) }
        }
        .padding()
    }
}
