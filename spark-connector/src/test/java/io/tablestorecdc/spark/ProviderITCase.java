package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import java.time.Duration;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What {@code readStream...load()} and query start check, through Spark and the emulator. */
class ProviderITCase {

    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @Test
    void schemaComesFromDescribeTable() {
        TableMeta meta = new TableMeta("two_keys");
        meta.addPrimaryKeyColumn("region", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("order_no", PrimaryKeyType.INTEGER);
        meta.addPrimaryKeyColumn("tag", PrimaryKeyType.BINARY);
        bed.sync.createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));

        StructType schema = bed.reader("two_keys", "t").load().schema();

        assertThat(schema.fieldNames())
                .containsExactly(
                        "region",
                        "order_no",
                        "tag",
                        "_values",
                        "_table",
                        "_op",
                        "_commit_ts",
                        "_channel",
                        "_seq",
                        "_column_ops");
        assertThat(schema.apply("order_no").dataType()).isEqualTo(DataTypes.LongType);
        assertThat(schema.apply("tag").dataType()).isEqualTo(DataTypes.BinaryType);
        assertThat(schema.apply("region").nullable()).isFalse();
    }

    @Test
    void userSchemaAddsTypedAttributeColumns() {
        String table = bed.newTable();
        StructType given = new StructType().add("qty", DataTypes.IntegerType);

        StructType schema = bed.reader(table, "t").schema(given).load().schema();

        assertThat(schema.fieldNames())
                .containsExactly(
                        "id",
                        "qty",
                        "_table",
                        "_op",
                        "_commit_ts",
                        "_channel",
                        "_seq",
                        "_column_ops");
    }

    @Test
    void badOptionsFailAtLoadNamingTheOption() {
        assertThatThrownBy(
                        () ->
                                bed.reader(bed.newTable(), "t")
                                        .option("max.rows.per.trigger", "lots")
                                        .option("tunnel.nmae", "x")
                                        .load())
                .hasMessageContaining("'max.rows.per.trigger' has invalid value 'lots'")
                .hasMessageContaining("Unknown option 'tunnel.nmae'")
                .hasMessageNotContaining(CdcTestBed.SECRET);
    }

    @Test
    void missingRequiredOptionsFailAtLoad() {
        assertThatThrownBy(() -> bed.spark.readStream().format("tablestore-cdc").load())
                .hasMessageContaining("Missing required option 'endpoint'")
                .hasMessageContaining("Missing required option 'tunnel.name'");
    }

    @Test
    void missingTableFailsAtLoad() {
        assertThatThrownBy(() -> bed.reader("no_such_table", "t").load())
                .hasMessageContaining("Could not describe table 'no_such_table'")
                .hasMessageContaining("Check the options table.name");
    }

    @Test
    void schemaThatDoesNotFitFailsAtLoad() {
        StructType given = new StructType().add("id", DataTypes.LongType);

        assertThatThrownBy(() -> bed.reader(bed.newTable(), "t").schema(given).load())
                .hasMessageContaining(
                        "column 'id' is bigint but this source always produces it as string");
    }

    @Test
    void missingTunnelFailsTheQueryNamingTheFix() throws Exception {
        String table = bed.newTable();
        StreamingQuery query =
                bed.start(
                        bed.baseReader(table, "absent").load(),
                        CdcTestBed.checkpointDir(),
                        new CdcTestBed.BatchSink());
        CdcTestBed.awaitCondition(
                "the query to fail", Duration.ofSeconds(30), () -> !query.isActive());

        assertThat(query.exception().get())
                .hasStackTraceContaining("Tunnel 'absent' of table '" + table + "'")
                .hasStackTraceContaining("set option tunnel.create to stream");
    }
}
