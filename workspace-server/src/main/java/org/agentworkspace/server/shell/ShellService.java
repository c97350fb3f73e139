package org.agentworkspace.server.shell;

import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.WsGate;

/**
 * The HTTP side of {@code /shell}: a refused upgrade (or a plain GET) lands here and gets the error envelope (401,
 * 403) from the same rule the upgrade uses, or 426 when everything but the upgrade was right.
 */
public final class ShellService extends ApiService {
    private final WsGate gate;

    public ShellService(WsGate gate, Guard guard, RouteTable table) {
        super("shell", guard, table);
        this.gate = gate;
    }

    @Override
    protected void declare(Routes r) {
        r.get(ShellEndpoint.PATH, ShellEndpoint.ACCESS, gate.fallback());
    }
}
