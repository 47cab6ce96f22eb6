package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static io.tablestorecdc.spark.CdcTestBed.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import io.tablestorecdc.emulator.InstanceMetadataStub;
import io.tablestorecdc.emulator.testkit.SettableCredentialsProvider;
import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A running query follows credentials that rotate ({@code credentials.provider = ecs-ram-role}):
 * after the metadata service issues new ones and the instance stops accepting the old ones, the
 * query keeps reading without a restart.
 */
class CredentialsRotationITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration REFRESH_BEFORE_EXPIRY = Duration.ofMinutes(5);
    // Credentials served are refreshed 2 s after they were fetched.
    private static final Duration VALIDITY = REFRESH_BEFORE_EXPIRY.plusSeconds(2);

    static CdcTestBed bed;
    static InstanceMetadataStub metadata;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
        metadata = InstanceMetadataStub.start(bed.emulator, "cdc-reader", VALIDITY);
    }

    @AfterAll
    static void stop() {
        metadata.close();
        bed.close();
    }

    @Test
    void aRotatedTokenIsPickedUpByARunningQuery() throws Exception {
        String table = bed.newTable();
        bed.put(table, "a1", 1, "before");
        bed.put(table, "a2", 2, "before");
        Dataset<Row> df =
                bed.spark
                        .readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", bed.emulator.endpoint())
                        .option("instance.name", bed.emulator.instanceName())
                        .option("credentials.provider", "ecs-ram-role")
                        .option("credentials.ecs.role.name", metadata.roleName())
                        .option("credentials.ecs.metadata.endpoint", metadata.endpoint())
                        .option("table.name", table)
                        .option("tunnel.name", table + "_tunnel")
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .option("channel.read.budget", "2s")
                        .schema(
                                new StructType()
                                        .add("qty", DataTypes.LongType)
                                        .add("name", DataTypes.StringType))
                        .load();
        BatchSink sink = new BatchSink();
        InstanceMetadataStub.Issued first = metadata.current();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "the rows written before", TIMEOUT, () -> sink.count() >= 2);
            assertThat(bed.emulator.acceptedRequestsSignedBy(first.accessKeyId())).isPositive();

            InstanceMetadataStub.Issued old = metadata.rotate();
            InstanceMetadataStub.Issued second = metadata.current();
            // As a real instance does: the old token is refused once it expired, by when every
            // client has replaced it (they replace credentials REFRESH_BEFORE_EXPIRY earlier).
            awaitCondition(
                    "every client to have replaced the old credentials",
                    TIMEOUT,
                    () ->
                            Instant.now()
                                    .isAfter(
                                            metadata.lastExpirationServed(old)
                                                    .minus(REFRESH_BEFORE_EXPIRY)
                                                    .plusSeconds(1)));
            metadata.revoke(old);
            long oldAccepted = bed.emulator.acceptedRequestsSignedBy(old.accessKeyId());

            bed.put(table, "b1", 3, "after");
            bed.put(table, "b2", 4, "after");
            await(query, "the rows written after the rotation", TIMEOUT, () -> sink.count() >= 4);

            assertThat(query.isActive()).isTrue();
            assertThat(bed.emulator.acceptedRequestsSignedBy(second.accessKeyId())).isPositive();
            assertThat(bed.emulator.acceptedRequestsSignedBy(old.accessKeyId()))
                    .isEqualTo(oldAccepted);
            String plan = df.queryExecution().toString() + query.lastProgress().json();
            assertThat(plan)
                    .doesNotContain(first.accessKeySecret(), first.securityToken())
                    .doesNotContain(second.accessKeySecret(), second.securityToken());
        } finally {
            query.stop();
        }

        List<String> ids = sink.rows().stream().map(r -> r.getString(r.fieldIndex("id"))).toList();
        assertThat(ids).containsExactly("a1", "a2", "b1", "b2");
    }

    @Test
    void aUsersProviderClassIsAskedOnEveryRequest() throws Exception {
        bed.emulator.acceptKey("user-key-1", "user-secret-1", "user-token-1");
        bed.emulator.acceptKey("user-key-2", "user-secret-2", "user-token-2");
        SettableCredentialsProvider.set(
                new DefaultCredentials("user-key-1", "user-secret-1", "user-token-1"));
        String table = bed.newTable();
        bed.put(table, "a1", 1, "before");
        Dataset<Row> df =
                bed.spark
                        .readStream()
                        .format("tablestore-cdc")
                        .option("endpoint", bed.emulator.endpoint())
                        .option("instance.name", bed.emulator.instanceName())
                        .option("credentials.provider", SettableCredentialsProvider.class.getName())
                        .option("table.name", table)
                        .option("tunnel.name", table + "_tunnel")
                        .option("tunnel.create", "stream")
                        .option("tunnel.start", "earliest")
                        .option("channel.read.budget", "2s")
                        .load();
        BatchSink sink = new BatchSink();

        StreamingQuery query = bed.start(df, CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "the row written before", TIMEOUT, () -> sink.count() >= 1);
            long secondBefore = bed.emulator.acceptedRequestsSignedBy("user-key-2");

            SettableCredentialsProvider.set(
                    new DefaultCredentials("user-key-2", "user-secret-2", "user-token-2"));
            bed.put(table, "b1", 2, "after");
            await(query, "the row written after the switch", TIMEOUT, () -> sink.count() >= 2);

            assertThat(bed.emulator.acceptedRequestsSignedBy("user-key-1")).isPositive();
            assertThat(bed.emulator.acceptedRequestsSignedBy("user-key-2"))
                    .isGreaterThan(secondBefore);
            assertThat(df.queryExecution().toString() + query.lastProgress().json())
                    .doesNotContain("user-secret", "user-token");
        } finally {
            query.stop();
        }
    }
}
