import CDBus
import Capture

/// A private connection to a message bus (the session bus unless given an
/// address). Owns the libdbus connection: closed and released on deinit.
///
/// Not thread-safe by design: one owner uses it at a time. Messages that
/// arrive while a call waits for its reply stay queued for `nextMessage`.
package final class DBusLink {
    private let connection: OpaquePointer
    let uniqueName: String

    /// - Parameter address: a bus address such as `unix:path=/run/user/1000/bus`;
    ///   nil uses `DBUS_SESSION_BUS_ADDRESS`, as every desktop program does.
    package init(address: String?) throws(CaptureError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let opened: OpaquePointer? = if let address {
            dbus_connection_open_private(address, &error)
        } else {
            dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        }
        guard let opened else {
            throw CaptureError(.permanent, "Could not reach the D-Bus session bus\(address.map { " at \($0)" } ?? ""): \(Self.words(error)). Is this a desktop session (DBUS_SESSION_BUS_ADDRESS set)?")
        }
        // libdbus would otherwise call exit() when the bus goes away.
        dbus_connection_set_exit_on_disconnect(opened, 0)
        if address != nil, dbus_bus_register(opened, &error) == 0 {
            dbus_connection_close(opened)
            dbus_connection_unref(opened)
            throw CaptureError(.permanent, "The D-Bus bus at \(address ?? "") refused to register us: \(Self.words(error))")
        }
        connection = opened
        uniqueName = dbus_bus_get_unique_name(opened).map { String(cString: $0) } ?? ""
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// Calls a method and waits up to `timeout` for its reply. `what` names
    /// the call for a person, e.g. "The screen-share portal's CreateSession";
    /// `failure` says whether a failed call is worth a capture restart.
    func call(_ message: DBusEnvelope, timeout: Duration, what: String,
              failure: CaptureError.Kind = .permanent) throws(CaptureError) -> DBusEnvelope {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message.raw, Self.milliseconds(timeout), &error) else {
            throw CaptureError(failure, "\(what) failed: \(Self.words(error))")
        }
        return DBusEnvelope(taking: reply)
    }

    /// Queues a message for sending and pushes it out.
    package func send(_ message: DBusEnvelope) throws(CaptureError) {
        guard dbus_connection_send(connection, message.raw, nil) != 0 else {
            throw CaptureError(.temporary, "Could not send a D-Bus message: out of memory")
        }
        dbus_connection_flush(connection)
    }

    /// Asks the bus to route signals matching `rule` to us.
    func addMatch(_ rule: String) throws(CaptureError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(connection, rule, &error)
        if dbus_error_is_set(&error) != 0 {
            throw CaptureError(.permanent, "The D-Bus session bus refused to pass on portal answers: \(Self.words(error))")
        }
    }

    /// Stops routing; nil error pointer makes libdbus not wait for the bus's answer.
    func removeMatch(_ rule: String) {
        dbus_bus_remove_match(connection, rule, nil)
    }

    /// Becomes the only owner of `name`, failing if someone else has it.
    package func ownName(_ name: String) throws(CaptureError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let answer = dbus_bus_request_name(connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        guard answer == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else {
            let reason = dbus_error_is_set(&error) != 0 ? Self.words(error) : "another program owns it"
            throw CaptureError(.permanent, "Could not take the D-Bus name \(name): \(reason)")
        }
    }

    /// The next incoming message, waiting up to `limit` for one to arrive;
    /// nil when none came or the bus went away (see `isConnected`).
    package func nextMessage(waitingUpTo limit: Duration) -> DBusEnvelope? {
        let deadline = ContinuousClock.now + limit
        while true {
            if let message = dbus_connection_pop_message(connection) {
                return DBusEnvelope(taking: message)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            guard dbus_connection_read_write(connection, max(1, Self.milliseconds(left))) != 0 else { return nil }
        }
    }

    package var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// libdbus takes timeouts as whole milliseconds in an `int`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    private static func words(_ error: DBusError) -> String {
        let message = error.message.map { String(cString: $0) } ?? "no reason given"
        let name = error.name.map { String(cString: $0) } ?? "unknown error"
        return "\(message) (\(name))"
    }
}
