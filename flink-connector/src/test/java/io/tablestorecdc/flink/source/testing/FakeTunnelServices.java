package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.TunnelProxyFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The core's {@link FakeTunnelService} for Flink tests: a tunnel on the orders table, and a
 * registry by name so that a serializable {@link TunnelProxyFactory} finds the fake a test set up
 * (the factory travels with the source; the fake stays in the JVM).
 */
public final class FakeTunnelServices {

    public static final String TABLE = "orders";
    public static final String TUNNEL = "orders-tunnel";

    private static final Map<String, FakeTunnelService> SERVICES = new ConcurrentHashMap<>();

    private FakeTunnelServices() {}

    /** A fake of tunnel {@link #TUNNEL} on table {@link #TABLE}. */
    public static FakeTunnelService orders(String tunnelId, TunnelType type) {
        return new FakeTunnelService(TABLE, TUNNEL, tunnelId, type);
    }

    public static TunnelProxyFactory register(String name, FakeTunnelService service) {
        SERVICES.put(name, service);
        return new Factory(name);
    }

    private static final class Factory implements TunnelProxyFactory {
        private static final long serialVersionUID = 1L;
        private final String name;

        Factory(String name) {
            this.name = name;
        }

        @Override
        public TunnelProxy create(TablestoreCdcSourceConfig config) {
            return SERVICES.get(name);
        }
    }
}
