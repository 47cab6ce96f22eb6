package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.TunnelProxyFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fake servers by name, so that a serializable {@link TunnelProxyFactory} can find the one a test
 * set up (the factory travels with the source; the server stays in the JVM).
 */
public final class FakeTunnelServers {

    private static final Map<String, FakeTunnelServer> SERVERS = new ConcurrentHashMap<>();

    private FakeTunnelServers() {}

    public static TunnelProxyFactory register(String name, FakeTunnelServer server) {
        SERVERS.put(name, server);
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
            return SERVERS.get(name).proxy();
        }
    }
}
