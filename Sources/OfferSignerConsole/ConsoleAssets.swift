import Foundation

/// The web console's files, embedded in the binary at build time (by the
/// EmbedConsoleAssets plugin from the `Assets` folder beside this file).
public enum ConsoleAssets {
    /// Every asset by the file name it is served under (`index.html`, `app.js`, …).
    public static let all: [String: ConsoleAsset] = Dictionary(uniqueKeysWithValues: embedded.map { entry in
        (entry.name, ConsoleAsset(name: entry.name, body: Array(Data(base64Encoded: entry.base64) ?? Data())))
    })
}
