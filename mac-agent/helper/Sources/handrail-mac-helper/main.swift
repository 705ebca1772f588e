// The Handrail mac helper (docs/design/mac.md, "The mac surface"): the macOS side of the helper protocol
// (mac-agent/protocol.ts), JSON lines over stdio. It reads an app's accessibility tree with batch attribute reads,
// acts only through AX (AXPress, AXValue; never coordinates), answers a destroyed element's ref `stale_ref`, checks
// AXEnabled before AXPress (AX answers a press on a disabled button with success and does nothing), activates the
// app before a menu press, pushes AX notifications as event lines, and reports a person's keyboard and mouse input
// from a listen-only CGEventTap, ignoring events this helper posted itself (marked in the event source user data).
//
// Written against Apple's ApplicationServices and AppKit documentation; NOT compiled or run on the machines this
// project is developed on (Linux). The Node side's protocol tests run against the fake helper (mac-agent/fake/).
import AppKit
import ApplicationServices
import Foundation

let protocolVersion = 1
/// Seconds AX waits for the target app before kAXErrorCannotComplete (AXUIElementSetMessagingTimeout).
let messagingTimeout: Float = 2.0
/// Stamped into kCGEventSourceUserData of any event this helper posts, so the tap can tell them from a person's.
let ownEventMarker: Int64 = 0x48_414E_4452 // "HANDR"

// MARK: - Output

let outLock = NSLock()
func send(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: []) else { return }
    outLock.lock()
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write("\n".data(using: .utf8)!)
    outLock.unlock()
}

struct Refusal: Error {
    let code: String
    let message: String
}

func refusal(_ err: AXError, _ what: String) -> Refusal {
    switch err {
    case .invalidUIElement: return Refusal(code: "stale_ref", message: "\(what): the element is gone (kAXErrorInvalidUIElement)")
    case .cannotComplete: return Refusal(code: "timeout", message: "\(what): the app did not answer within \(messagingTimeout) s (kAXErrorCannotComplete)")
    case .apiDisabled: return Refusal(code: "permission_missing", message: "\(what): Accessibility is not granted to this helper")
    case .actionUnsupported: return Refusal(code: "action_not_listed", message: "\(what): action unsupported")
    case .attributeUnsupported: return Refusal(code: "not_settable", message: "\(what): attribute unsupported")
    default: return Refusal(code: "internal", message: "\(what): AXError \(err.rawValue)")
    }
}

// MARK: - Refs: one per element, until it is destroyed

final class Refs {
    private var byRef: [String: AXUIElement] = [:]
    private var byHash: [CFHashCode: [(String, AXUIElement)]] = [:]
    private var next = 1

    func ref(of element: AXUIElement) -> String {
        let h = CFHash(element)
        if let hit = byHash[h]?.first(where: { CFEqual($0.1, element) }) { return hit.0 }
        let r = "ax\(next)"
        next += 1
        byRef[r] = element
        byHash[h, default: []].append((r, element))
        return r
    }

    /// The element behind a ref; a ref never issued, or one whose element no longer answers, is stale.
    func element(_ ref: String) throws -> AXUIElement {
        guard let el = byRef[ref] else { throw Refusal(code: "stale_ref", message: "\(ref) was never issued or was forgotten") }
        var role: CFTypeRef?
        let err = AXUIElementCopyAttributeValue(el, kAXRoleAttribute as CFString, &role)
        if err == .invalidUIElement {
            forget(ref)
            throw refusal(err, ref)
        }
        return el
    }

    func forget(_ ref: String) {
        guard let el = byRef.removeValue(forKey: ref) else { return }
        let h = CFHash(el)
        byHash[h]?.removeAll { $0.0 == ref }
    }
}

let refs = Refs()

// MARK: - Reading the tree

/// Read in one round trip per element (AXUIElementCopyMultipleAttributeValues), in this order.
let batch: [String] = [
    kAXRoleAttribute, kAXSubroleAttribute, kAXTitleAttribute, kAXDescriptionAttribute, kAXValueAttribute,
    "AXIdentifier", "AXPlaceholderValue", kAXRoleDescriptionAttribute, kAXTitleUIElementAttribute,
    kAXDocumentAttribute, kAXEnabledAttribute, kAXFocusedAttribute, kAXChildrenAttribute,
]
let maybeSettable: [String] = [kAXValueAttribute, kAXFocusedAttribute, kAXSelectedTextAttribute]

func text(_ v: AnyObject?) -> String? {
    guard let v = v else { return nil }
    if CFGetTypeID(v) == AXValueGetTypeID() { return nil } // an AXValue here is kAXValueAXErrorType: no such attribute
    if let s = v as? String { return s }
    if let n = v as? NSNumber { return n.stringValue }
    if let u = v as? URL { return u.absoluteString }
    return nil
}

func node(_ el: AXUIElement, depth: Int) throws -> [String: Any] {
    var values: CFArray?
    let err = AXUIElementCopyMultipleAttributeValues(el, batch as CFArray, AXCopyMultipleAttributeOptions(rawValue: 0), &values)
    guard err == .success, let arr = values as? [AnyObject], arr.count == batch.count else { throw refusal(err, "reading attributes") }
    var out: [String: Any] = ["ref": refs.ref(of: el)]
    out["role"] = text(arr[0]) ?? "AXUnknown"
    for (i, key) in [(1, "subrole"), (2, "title"), (3, "description"), (4, "value"), (5, "identifier"), (6, "placeholder"), (7, "roleDescription"), (9, "document")] {
        if let s = text(arr[i]), !s.isEmpty { out[key] = s }
    }
    if CFGetTypeID(arr[8]) == AXUIElementGetTypeID() { out["titleElement"] = refs.ref(of: arr[8] as! AXUIElement) }
    out["enabled"] = (arr[10] as? Bool) ?? true
    out["focused"] = (arr[11] as? Bool) ?? false
    out["settable"] = maybeSettable.filter { attr in
        var ok = DarwinBoolean(false)
        return AXUIElementIsAttributeSettable(el, attr as CFString, &ok) == .success && ok.boolValue
    }
    var actions: CFArray?
    out["actions"] = AXUIElementCopyActionNames(el, &actions) == .success ? ((actions as? [String]) ?? []) : []
    var children: [[String: Any]] = []
    if depth > 1, let kids = arr[12] as? [AXUIElement] {
        for k in kids {
            // A child destroyed while the tree is read is left out, not an error of the whole snapshot.
            if let n = try? node(k, depth: depth - 1) { children.append(n) }
        }
    }
    out["children"] = children
    return out
}

// MARK: - Apps

var apps: [pid_t: AXUIElement] = [:]

func appElement(_ pid: pid_t) throws -> AXUIElement {
    guard AXIsProcessTrusted() else { throw Refusal(code: "permission_missing", message: "Accessibility is not granted to the helper (System Settings > Privacy & Security > Accessibility)") }
    if let a = apps[pid] { return a }
    guard NSRunningApplication(processIdentifier: pid) != nil else { throw Refusal(code: "no_such_app", message: "no app with pid \(pid)") }
    let a = AXUIElementCreateApplication(pid)
    AXUIElementSetMessagingTimeout(a, messagingTimeout)
    apps[pid] = a
    return a
}

func open(bundleId: String) throws -> [String: Any] {
    guard AXIsProcessTrusted() else { throw Refusal(code: "permission_missing", message: "Accessibility is not granted to the helper") }
    if let running = NSRunningApplication.runningApplications(withBundleIdentifier: bundleId).first {
        _ = running.activate(options: [])
        return ["pid": Int(running.processIdentifier), "name": running.localizedName ?? bundleId]
    }
    guard let url = NSWorkspace.shared.urlForApplication(withBundleIdentifier: bundleId) else {
        throw Refusal(code: "no_such_app", message: "no app with bundle id \(bundleId) is installed")
    }
    let done = DispatchSemaphore(value: 0)
    var launched: NSRunningApplication?
    var failure: Error?
    let config = NSWorkspace.OpenConfiguration()
    config.activates = true
    NSWorkspace.shared.openApplication(at: url, configuration: config) { app, err in
        launched = app
        failure = err
        done.signal()
    }
    // openApplication calls back on a background queue; this runs on the request queue, not the main run loop.
    if done.wait(timeout: .now() + 30) == .timedOut { throw Refusal(code: "timeout", message: "\(bundleId) did not launch within 30 s") }
    guard let app = launched else { throw Refusal(code: "no_such_app", message: "\(bundleId) could not be launched: \(failure?.localizedDescription ?? "unknown")") }
    return ["pid": Int(app.processIdentifier), "name": app.localizedName ?? bundleId]
}

func pidOf(_ el: AXUIElement) -> pid_t {
    var pid: pid_t = 0
    AXUIElementGetPid(el, &pid)
    return pid
}

func isMenuItem(_ el: AXUIElement) -> Bool {
    var role: CFTypeRef?
    AXUIElementCopyAttributeValue(el, kAXRoleAttribute as CFString, &role)
    let r = role as? String
    return r == kAXMenuItemRole || r == kAXMenuBarItemRole
}

func perform(ref: String, action: String) throws {
    let el = try refs.element(ref)
    var names: CFArray?
    let listed = AXUIElementCopyActionNames(el, &names) == .success ? ((names as? [String]) ?? []) : []
    guard listed.contains(action) else { throw Refusal(code: "action_not_listed", message: "\(ref) lists [\(listed.joined(separator: ", "))], not \(action)") }
    if action == kAXPressAction {
        var enabled: CFTypeRef?
        if AXUIElementCopyAttributeValue(el, kAXEnabledAttribute as CFString, &enabled) == .success, (enabled as? Bool) == false {
            throw Refusal(code: "disabled", message: "\(ref) is disabled (AXEnabled is false): not pressed")
        }
        // A menu item is pressed in the frontmost app only: bring its app forward first.
        if isMenuItem(el) { _ = NSRunningApplication(processIdentifier: pidOf(el))?.activate(options: []) }
    }
    let err = AXUIElementPerformAction(el, action as CFString)
    if err != .success { throw refusal(err, "\(action) on \(ref)") }
}

func set(ref: String, attr: String, value: Any) throws {
    let el = try refs.element(ref)
    var ok = DarwinBoolean(false)
    let err = AXUIElementIsAttributeSettable(el, attr as CFString, &ok)
    if err != .success { throw refusal(err, "\(attr) of \(ref)") }
    guard ok.boolValue else { throw Refusal(code: "not_settable", message: "\(ref): \(attr) is not settable") }
    let cf: CFTypeRef
    if let s = value as? String {
        cf = s as CFString
    } else if let b = value as? Bool {
        cf = (b ? kCFBooleanTrue : kCFBooleanFalse)!
    } else {
        throw Refusal(code: "bad_request", message: "\(attr) takes a string or a boolean")
    }
    let setErr = AXUIElementSetAttributeValue(el, attr as CFString, cf)
    if setErr != .success { throw refusal(setErr, "setting \(attr) of \(ref)") }
}

// MARK: - Notifications

var observers: [pid_t: AXObserver] = [:]

let observerCallback: AXObserverCallback = { _, element, notification, _ in
    var line: [String: Any] = ["v": protocolVersion, "event": "ax", "notification": notification as String, "pid": Int(pidOf(element))]
    if (notification as String) == kAXUIElementDestroyedNotification {
        // The element can no longer be read; its ref, if it had one, is stale from now on.
        line["ref"] = refs.ref(of: element)
        refs.forget(line["ref"] as! String)
    } else {
        line["ref"] = refs.ref(of: element)
    }
    send(line)
}

func observe(pid: pid_t, notifications: [String]) throws {
    let app = try appElement(pid)
    var obs = observers[pid]
    if obs == nil {
        var created: AXObserver?
        let err = AXObserverCreate(pid, observerCallback, &created)
        guard err == .success, let o = created else { throw refusal(err, "creating an observer") }
        CFRunLoopAddSource(CFRunLoopGetMain(), AXObserverGetRunLoopSource(o), .defaultMode)
        observers[pid] = o
        obs = o
    }
    for n in notifications {
        let err = AXObserverAddNotification(obs!, app, n as CFString, nil)
        if err != .success && err != .notificationAlreadyRegistered { throw refusal(err, "observing \(n)") }
    }
}

// MARK: - The event tap: a person's input

var tap: CFMachPort?
var tapSource: CFRunLoopSource?

let tapCallback: CGEventTapCallBack = { _, type, event, _ in
    if type == .tapDisabledByTimeout || type == .tapDisabledByUserInput {
        if let t = tap { CGEvent.tapEnable(tap: t, enable: true) }
        return Unmanaged.passUnretained(event)
    }
    // Ignore what this helper posted itself.
    if event.getIntegerValueField(.eventSourceUserData) == ownEventMarker { return Unmanaged.passUnretained(event) }
    let kind = (type == .keyDown || type == .flagsChanged) ? "key" : "mouse"
    send(["v": protocolVersion, "event": "input", "kind": kind, "at": Date().timeIntervalSince1970 * 1000])
    return Unmanaged.passUnretained(event)
}

func tapStart() throws {
    if tap != nil { return }
    guard CGPreflightListenEventAccess() else {
        CGRequestListenEventAccess()
        throw Refusal(code: "permission_missing", message: "Input Monitoring is not granted to the helper (System Settings > Privacy & Security > Input Monitoring)")
    }
    let types: [CGEventType] = [.keyDown, .flagsChanged, .leftMouseDown, .rightMouseDown, .otherMouseDown, .scrollWheel]
    let mask = types.reduce(CGEventMask(0)) { $0 | (CGEventMask(1) << CGEventMask($1.rawValue)) }
    guard let port = CGEvent.tapCreate(tap: .cgSessionEventTap, place: .headInsertEventTap, options: .listenOnly, eventsOfInterest: mask, callback: tapCallback, userInfo: nil) else {
        throw Refusal(code: "permission_missing", message: "the event tap could not be created (Input Monitoring)")
    }
    tap = port
    tapSource = CFMachPortCreateRunLoopSource(kCFAllocatorDefault, port, 0)
    CFRunLoopAddSource(CFRunLoopGetMain(), tapSource, .commonModes)
    CGEvent.tapEnable(tap: port, enable: true)
}

func tapStop() {
    if let t = tap { CGEvent.tapEnable(tap: t, enable: false) }
    if let s = tapSource { CFRunLoopRemoveSource(CFRunLoopGetMain(), s, .commonModes) }
    tap = nil
    tapSource = nil
}

// MARK: - Requests

func handle(_ method: String, _ p: [String: Any]) throws -> [String: Any] {
    switch method {
    case "hello":
        let v = p["version"] as? Int ?? -1
        guard v == protocolVersion else { throw Refusal(code: "version_mismatch", message: "the helper speaks protocol \(protocolVersion), the client \(v)") }
        return ["version": protocolVersion, "helper": "handrail-mac-helper", "platform": "darwin"]
    case "open":
        guard let b = p["bundleId"] as? String else { throw Refusal(code: "bad_request", message: "open needs bundleId") }
        return try open(bundleId: b)
    case "snapshot":
        guard let pid = p["pid"] as? Int, let depth = p["maxDepth"] as? Int else { throw Refusal(code: "bad_request", message: "snapshot needs pid and maxDepth") }
        let app = try appElement(pid_t(pid))
        var root: AXUIElement = app
        if let scope = p["scope"] as? String, scope == "focused_window" {
            var w: CFTypeRef?
            let err = AXUIElementCopyAttributeValue(app, kAXFocusedWindowAttribute as CFString, &w)
            guard err == .success, let win = w else { throw refusal(err, "the focused window") }
            root = win as! AXUIElement
        } else if let scope = p["scope"] as? [String: Any], let ref = scope["ref"] as? String {
            root = try refs.element(ref)
        }
        return ["root": try node(root, depth: depth)]
    case "perform":
        guard let ref = p["ref"] as? String, let action = p["action"] as? String else { throw Refusal(code: "bad_request", message: "perform needs ref and action") }
        try perform(ref: ref, action: action)
        return [:]
    case "set":
        guard let ref = p["ref"] as? String, let attr = p["attr"] as? String, let value = p["value"] else { throw Refusal(code: "bad_request", message: "set needs ref, attr and value") }
        try set(ref: ref, attr: attr, value: value)
        return [:]
    case "observe":
        guard let pid = p["pid"] as? Int, let names = p["notifications"] as? [String] else { throw Refusal(code: "bad_request", message: "observe needs pid and notifications") }
        try observe(pid: pid_t(pid), notifications: names)
        return [:]
    case "permissions":
        return ["accessibility": AXIsProcessTrusted(), "inputMonitoring": CGPreflightListenEventAccess()]
    case "tap.start":
        try tapStart()
        return [:]
    case "tap.stop":
        tapStop()
        return [:]
    default:
        throw Refusal(code: "unknown_method", message: "no method \(method)")
    }
}

func answer(_ line: String) {
    guard let data = line.data(using: .utf8), let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        send(["v": protocolVersion, "id": 0, "ok": false, "error": ["code": "bad_request", "message": "not a JSON line"]])
        return
    }
    let id = obj["id"] as? Int ?? 0
    guard let method = obj["method"] as? String else {
        send(["v": protocolVersion, "id": id, "ok": false, "error": ["code": "bad_request", "message": "no method"]])
        return
    }
    do {
        let result = try handle(method, obj["params"] as? [String: Any] ?? [:])
        send(["v": protocolVersion, "id": id, "ok": true, "result": result])
    } catch let r as Refusal {
        send(["v": protocolVersion, "id": id, "ok": false, "error": ["code": r.code, "message": r.message]])
    } catch {
        send(["v": protocolVersion, "id": id, "ok": false, "error": ["code": "internal", "message": "\(error)"]])
    }
}

// Requests are read on a background thread and answered one at a time on the main queue, where the AX observers and
// the event tap deliver too (`open` waits for NSWorkspace's callback, which arrives on another queue).
Thread.detachNewThread {
    while let line = readLine(strippingNewline: true) {
        if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
        DispatchQueue.main.sync { answer(line) }
    }
    exit(0)
}
CFRunLoopRun()
