package io.tablestorecdc.flink.source.conformance;

import static io.tablestorecdc.emulator.testkit.EmulatorBed.key;

import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;

/**
 * One test case's table, with a stream tunnel created before anything is written. Its partitions
 * are the suite's splits: the first writer writes to the table's one partition; each later writer
 * splits the last partition at a new key ({@code s001}, {@code s002}, ...) and writes keys just
 * above it, which fall in the upper child. So a new split of the suite is what it is in production,
 * a child channel, which the job may read only after its parent was read to its end and that end
 * was committed by a checkpoint; a writer that writes again after a later split writes to the lower
 * child, the child of its first channel.
 *
 * <p>A bounded source creates a BaseData tunnel on the table when its job starts (the source's
 * bounded form without an end position) and reads what every partition holds then, one channel per
 * partition, in key order: the order of writing.
 */
final class TablestoreCdcSourceExternalContext implements DataStreamSourceExternalContext<String> {

    private static final String META_TABLE = "conformance_meta";

    private static final int MIN_RECORDS = 20;
    private static final int MAX_RECORDS = 100;
    private static final String ALPHANUMERIC =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    private final EmulatorBed bed;
    private final String table;
    private final String streamTunnel;
    private final List<PartitionDataWriter> writers = new ArrayList<>();

    TablestoreCdcSourceExternalContext(EmulatorBed bed) {
        this.bed = bed;
        this.table = bed.newTable("conformance_t");
        this.streamTunnel = table + "_stream";
        bed.createStreamTunnel(table, streamTunnel);
    }

    @Override
    public Source<String, ?, ?> createSource(TestingSourceSettings settings) {
        TablestoreCdcSourceBuilder<String> builder =
                TablestoreCdcSource.<String>builder()
                        .setEndpoint(bed.emulator().endpoint())
                        .setInstanceName(bed.emulator().instanceName())
                        .setCredentials(
                                bed.emulator().accessKeyId(), bed.emulator().accessKeySecret())
                        .setTableName(table)
                        .setMetaTable(META_TABLE)
                        .setDiscoveryInterval(Duration.ofMillis(200))
                        .setHeartbeatInterval(Duration.ofSeconds(5))
                        .setHeartbeatTimeout(Duration.ofSeconds(30))
                        .setDeserializer(new ValueColumn());
        if (settings.getBoundedness() == Boundedness.BOUNDED) {
            builder.setTunnelName(table + "_base").setTunnelCreation(TunnelCreation.BASE);
        } else {
            builder.setTunnelName(streamTunnel);
        }
        return builder.build();
    }

    @Override
    public ExternalSystemSplitDataWriter<String> createSourceSplitDataWriter(
            TestingSourceSettings settings) {
        int index = writers.size();
        String prefix = String.format("s%03d", index);
        if (index > 0) {
            List<String> children = bed.emulator().tunnels().split(table, key(prefix));
            if (children.size() != 2) {
                throw new IllegalStateException(
                        "Splitting " + table + " at " + prefix + " gave " + children);
            }
        }
        PartitionDataWriter writer = new PartitionDataWriter(bed, table, prefix);
        writers.add(writer);
        return writer;
    }

    @Override
    public List<String> generateTestData(
            TestingSourceSettings settings, int splitIndex, long seed) {
        Random random = new Random(seed);
        int count = MIN_RECORDS + random.nextInt(MAX_RECORDS - MIN_RECORDS + 1);
        List<String> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            StringBuilder record = new StringBuilder().append(splitIndex).append('-');
            int length = 1 + random.nextInt(40);
            for (int c = 0; c < length; c++) {
                record.append(ALPHANUMERIC.charAt(random.nextInt(ALPHANUMERIC.length())));
            }
            records.add(record.toString());
        }
        return records;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return new ValueColumn().getProducedType();
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return List.of(); // the MiniCluster runs on the test classpath
    }

    /** Drops the table and with it its tunnels, so that a job left running fails and ends. */
    @Override
    public void close() {
        writers.forEach(PartitionDataWriter::close);
        bed.sync().deleteTable(new DeleteTableRequest(table));
    }

    @Override
    public String toString() {
        return "partition splits";
    }
}
