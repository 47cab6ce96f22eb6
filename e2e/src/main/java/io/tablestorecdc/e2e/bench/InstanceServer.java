package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.e2e.InstanceConnection;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.Map;
import java.util.Optional;

/**
 * A Tablestore instance reached only by endpoint, instance name and credentials, as the benchmark's
 * drains see a server: it cannot be split on request, and its CPU is not ours to read.
 */
final class InstanceServer implements BenchEmulator {

    /** No server clock: a remote instance's CPU is not visible from here. */
    static final ServerCpu NO_SERVER_CPU =
            new ServerCpu() {
                @Override
                public Map<Long, Long> nanosByClock() {
                    return Map.of();
                }

                @Override
                public boolean inBenchJvm() {
                    return false;
                }
            };

    private final InstanceConnection connection;

    InstanceServer(InstanceConnection connection) {
        this.connection = connection;
    }

    @Override
    public String mode() {
        return "instance";
    }

    @Override
    public String endpoint() {
        return connection.endpoint();
    }

    @Override
    public String instanceName() {
        return connection.instanceName();
    }

    @Override
    public String accessKeyId() {
        return fixedKey().accessKeyId();
    }

    @Override
    public String accessKeySecret() {
        return fixedKey().accessKeySecret();
    }

    private io.tablestorecdc.checkpoint.model.TablestoreCredentials fixedKey() {
        CredentialsSource source = connection.credentials();
        return source.fixedCredentials()
                .orElseThrow(
                        () ->
                                new UnsupportedOperationException(
                                        "No fixed key: credentials come from "
                                                + source.describe()));
    }

    @Override
    public InstanceConnection connection() {
        return connection;
    }

    @Override
    public SyncClient newSyncClient() {
        return connection.syncClient();
    }

    @Override
    public TunnelClient newTunnelClient() {
        return connection.tunnelClient();
    }

    @Override
    public void split(String table, PrimaryKey at) {
        throw new UnsupportedOperationException(
                "A Tablestore instance splits its partitions by itself, never on request");
    }

    @Override
    public ServerCpu serverCpu() {
        return NO_SERVER_CPU;
    }

    @Override
    public Optional<TablestoreEmulator> inProcess() {
        return Optional.empty();
    }

    @Override
    public void close() {}

    @Override
    public String toString() {
        return connection.toString();
    }
}
