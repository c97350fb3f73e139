package org.agentworkspace.server.ws;

import io.helidon.common.buffers.BufferData;
import io.helidon.websocket.WsCloseCodes;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

/**
 * The listener side shared by the server's JSON-text sockets: binary frames are refused (1003), pings are answered
 * and pongs noted through the {@link SocketPump}, a close or an error ends the socket through {@link #end()}.
 */
public abstract class PumpedListener implements WsListener {
    private final String name;

    /**
     * Close code of a socket whose account was deleted while it was open (private-use range 4000-4999; 4401 as in
     * "401, no longer authenticated"). docs/live-channels.md, docs/shell.md.
     */
    public static final int CLOSE_ACCOUNT_DELETED = 4401;

    protected PumpedListener(String name) {
        this.name = name;
    }

    /** The socket's sending pump. */
    protected abstract SocketPump pump();

    /** The socket is gone: release what it holds (and {@link SocketPump#stop()} the pump). */
    protected abstract void end();

    @Override
    public void onMessage(WsSession session, BufferData buffer, boolean last) {
        pump().closeWith(WsCloseCodes.NOT_CONSISTENT, "binary frames are not part of this protocol");
    }

    @Override
    public void onPing(WsSession session, BufferData buffer) {
        pump().heard();
        byte[] data = new byte[buffer.available()];
        buffer.read(data);
        pump().pong(data);
    }

    @Override
    public void onPong(WsSession session, BufferData buffer) {
        pump().heard();
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        end();
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        System.getLogger(PumpedListener.class.getName()).log(System.Logger.Level.DEBUG, name + " socket error", t);
        end();
    }
}
