package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.util.ArrayList;
import java.util.List;

/**
 * An embedded emulator with a raw SDK {@code SyncClient} for writes, and {@link SdkTunnelProxy}s
 * built on it: the server side of the tunnel integration tests.
 */
final class TunnelEmulatorFixture implements AutoCloseable {

    /** Short waits, so that the retry tests stay fast. */
    static final TunnelRetryPolicy FAST_RETRIES =
            new TunnelRetryPolicy(
                    4, java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(5));

    private final EmulatorBed bed = EmulatorBed.start();
    final TablestoreEmulator emulator = bed.emulator();
    final SyncClient sync = bed.sync();

    TablestoreEndpoint endpoint(String accessKeySecret) {
        return new TablestoreEndpoint(
                emulator.endpoint(),
                emulator.instanceName(),
                TablestoreCredentials.of(emulator.accessKeyId(), accessKeySecret));
    }

    SdkTunnelProxy proxy(TunnelMetrics metrics) {
        return SdkTunnelProxy.create(endpoint(emulator.accessKeySecret()), FAST_RETRIES, metrics);
    }

    /** A new table with primary key (id STRING). */
    String newTable() {
        return bed.newTable("tunnel_it_");
    }

    /** A new table with primary key (id STRING) whose stream carries {@code originColumns}. */
    String newTableWithBeforeImages(String... originColumns) {
        return bed.newTableWithBeforeImages("tunnel_it_", originColumns);
    }

    static PrimaryKey key(String id) {
        return EmulatorBed.key(id);
    }

    void put(String table, String id, long value) {
        bed.put(table, id, value);
    }

    /** Reads a channel from {@code token} until it is finished or has nothing more for now. */
    static List<ChangeRecord> drain(
            TunnelProxy proxy, TunnelClientId client, String channelId, String token) {
        List<ChangeRecord> records = new ArrayList<>();
        String next = token;
        for (int reads = 0; reads < 10_000; reads++) {
            ReadResult result = proxy.readRecords(client, channelId, next);
            records.addAll(result.records());
            if (result.isFinished() || (!result.mayMoreRecord() && result.records().isEmpty())) {
                return records;
            }
            next = result.next().token();
        }
        throw new AssertionError("Channel " + channelId + " did not drain in 10000 reads");
    }

    static List<String> ids(List<ChangeRecord> records) {
        return records.stream().map(r -> r.primaryKey().get(0).value().asString()).toList();
    }

    @Override
    public void close() {
        bed.close();
    }
}
