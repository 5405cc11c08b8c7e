import CDBus

/// One D-Bus message (call, reply, error or signal); owns its libdbus
/// reference and gives it up when released.
package final class DBusEnvelope {
    package enum Kind { case methodCall, methodReturn, error, signal, other }

    let raw: OpaquePointer

    /// Takes over a reference the caller already holds.
    init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        dbus_message_unref(raw)
    }

    static func methodCall(destination: String, path: String, interface: String, member: String,
                           arguments: [DBusValue] = []) -> DBusEnvelope {
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            preconditionFailure("libdbus ran out of memory or was given an invalid name for \(interface).\(member)")
        }
        return DBusEnvelope(taking: raw).appending(arguments)
    }

    package static func signal(path: String, interface: String, member: String, destination: String?,
                       arguments: [DBusValue]) -> DBusEnvelope {
        guard let raw = dbus_message_new_signal(path, interface, member) else {
            preconditionFailure("libdbus ran out of memory or was given an invalid path \(path)")
        }
        let envelope = DBusEnvelope(taking: raw)
        if let destination { dbus_message_set_destination(raw, destination) }
        return envelope.appending(arguments)
    }

    /// The reply to this call, carrying `arguments`.
    package func reply(_ arguments: [DBusValue]) -> DBusEnvelope {
        guard let raw = dbus_message_new_method_return(raw) else {
            preconditionFailure("libdbus ran out of memory while replying")
        }
        return DBusEnvelope(taking: raw).appending(arguments)
    }

    /// An error reply to this call: `name` is a D-Bus error name, `message` the words for a person.
    package func errorReply(name: String, message: String) -> DBusEnvelope {
        guard let raw = dbus_message_new_error(raw, name, message) else {
            preconditionFailure("libdbus ran out of memory while replying with an error")
        }
        return DBusEnvelope(taking: raw)
    }

    @discardableResult
    func appending(_ arguments: [DBusValue]) -> DBusEnvelope {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iterator)
        for argument in arguments { argument.append(to: &iterator) }
        return self
    }

    package var arguments: [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iterator) != 0 else { return [] }
        return DBusValue.readAll(&iterator)
    }

    package var kind: Kind {
        switch dbus_message_get_type(raw) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: .error
        case DBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .other
        }
    }

    package var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    package var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    package var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    package var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
}
