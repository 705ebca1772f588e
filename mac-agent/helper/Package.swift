// swift-tools-version:5.9
// The Handrail mac helper (docs/design/mac.md, "The mac surface"): build on a Mac with `swift build -c release`.
// Not compiled or run on the Linux machines this project is developed on.
import PackageDescription

let package = Package(
    name: "handrail-mac-helper",
    platforms: [.macOS(.v13)],
    targets: [
        .executableTarget(
            name: "handrail-mac-helper",
            path: "Sources/handrail-mac-helper",
            linkerSettings: [.linkedFramework("ApplicationServices"), .linkedFramework("AppKit")]
        ),
    ]
)
