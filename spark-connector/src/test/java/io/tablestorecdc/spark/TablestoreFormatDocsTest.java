package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.checkpoint.testing.OptionTable;
import io.tablestorecdc.spark.read.TablestoreReadOptions;
import io.tablestorecdc.spark.sink.TablestoreWriteOptions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The option tables of format("tablestore") in docs/tablestore-table.md are generated. */
class TablestoreFormatDocsTest {

    @Test
    void theWriteAndReadTablesAreGeneratedFromTheDeclarations() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("tablestore-table.md"),
                "spark-write-options",
                OptionTable.markdown(TablestoreWriteOptions.DECLARED));
        GeneratedDocs.check(
                GeneratedDocs.page("tablestore-table.md"),
                "spark-read-options",
                OptionTable.markdown(TablestoreReadOptions.DECLARED));
    }

    @Test
    void theDeclaredDefaultsAreWhatAnUnsetOptionGives() {
        Map<String, String> connection = new HashMap<>();
        connection.put("endpoint", "http://127.0.0.1:1");
        connection.put("instance.name", "inst");
        connection.put("access.key.id", "id");
        connection.put("access.key.secret", "secret");
        connection.put("table.name", "orders");
        TablestoreReadOptions read = TablestoreReadOptions.parse(connection);
        assertThat(read.splitSize()).isEqualTo(TablestoreReadOptions.DEFAULT_SPLIT_SIZE);
        assertThat(TablestoreReadOptions.READ_SPLIT_SIZE_SPEC.defaultValue()).contains("100m");
        assertThat(read.sampleRows()).isZero();
        TablestoreWriteOptions write = TablestoreWriteOptions.parse(connection);
        assertThat(write.mode().toString()).isEqualTo("put");
        assertThat(write.settings().maxRows()).isEqualTo(200);
        assertThat(write.settings().maxRetries()).isEqualTo(3);
        assertThat(write.settings().ignoreDelete()).isFalse();
    }
}
