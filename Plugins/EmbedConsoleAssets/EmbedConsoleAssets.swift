import Foundation
import PackagePlugin

/// Embeds the web console's files (the target's `Assets` folder) in the binary: at build
/// time `ConsoleAssetEmbedder` writes them into a Swift source file, so the release binary
/// alone serves the console, with no folder to deploy beside it and no build step but
/// `swift build`.
@main
struct EmbedConsoleAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Assets")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "ConsoleAssets+Embedded.swift")
        return [.buildCommand(
            displayName: "Embedding \(files.count) console assets",
            executable: try context.tool(named: "ConsoleAssetEmbedder").url,
            arguments: [output.path] + files.map(\.path),
            inputFiles: files + [folder],
            outputFiles: [output])]
    }
}
