package io.tablestorecdc.e2e.bench;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.e2e.InstanceConnection;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.util.Optional;

/**
 * What the benchmark's parts need from the emulator, wherever it runs: where it serves and with
 * which credentials, how to split a table's partition, and whose CPU is the server's. Only the
 * embedded emulator also hands out its internals (request counters, table listeners, read batch
 * size).
 */
interface BenchEmulator extends AutoCloseable {

    /** {@code embedded} or {@code process}, as the {@code emulator} setting names it. */
    String mode();

    String endpoint();

    String instanceName();

    String accessKeyId();

    String accessKeySecret();

    /** Splits the partition of {@code table} that holds {@code at} into two at that key. */
    void split(String table, PrimaryKey at);

    /** Where the emulator server's CPU time is read. */
    ServerCpu serverCpu();

    /** The emulator object, when it runs in this JVM; empty for a child process. */
    Optional<TablestoreEmulator> inProcess();

    /**
     * The emulator's request and row counters, with {@code metaTable}'s rows: read in this JVM, or
     * over the admin routes of an emulator in its own process.
     */
    default ServerCounters counters(String metaTable) {
        return inProcess()
                .map(e -> ServerCounters.embedded(e, metaTable))
                .orElseGet(() -> ServerCounters.overHttp(endpoint(), metaTable));
    }

    /** Where the connectors and SDK clients connect, and with which credentials. */
    default InstanceConnection connection() {
        return InstanceConnection.withKey(
                endpoint(), instanceName(), accessKeyId(), accessKeySecret());
    }

    /** A new SDK table client (the caller shuts it down). */
    default SyncClient newSyncClient() {
        return new SyncClient(endpoint(), accessKeyId(), accessKeySecret(), instanceName());
    }

    /** A new SDK tunnel client (the caller shuts it down). */
    default TunnelClient newTunnelClient() {
        return new TunnelClient(endpoint(), accessKeyId(), accessKeySecret(), instanceName());
    }

    /** Stops the emulator (for a child process: ends it). */
    @Override
    void close();
}
