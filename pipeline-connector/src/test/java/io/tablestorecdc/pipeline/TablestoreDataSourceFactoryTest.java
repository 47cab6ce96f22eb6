package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.CellValue;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.cdc.common.configuration.Configuration;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.junit.jupiter.api.Test;

/** The options a pipeline's source block gives, checked before anything is read. */
class TablestoreDataSourceFactoryTest {

    private final TablestoreDataSourceFactory factory = new TablestoreDataSourceFactory();

    @Test
    void theSharedOptionsAreCheckedByTheCoreAsForTheOtherSourcesNamingThePipelineKeys() {
        Map<String, String> noTables = valid();
        noTables.remove("tables");
        Map<String, String> badCreate = valid();
        badCreate.put("tunnel.create", "always");

        assertThatThrownBy(() -> create(noTables)).hasMessageContaining("tables");
        assertThatThrownBy(() -> create(badCreate))
                .hasMessageContaining(
                        "Option 'tunnel.create' has invalid value 'always': use none (default),"
                                + " stream, base or base-and-stream");
        assertThat(create(valid())).isInstanceOf(TablestoreDataSource.class);
    }

    @Test
    void anUnknownKeyIsRefused() {
        Map<String, String> typo = valid();
        typo.put("tunel.name", "x");

        assertThatThrownBy(() -> create(typo)).hasMessageContaining("tunel.name");
    }

    @Test
    void theSchemaOptionsAreCheckedNamingTheFix() {
        Map<String, String> badMode = valid();
        badMode.put("schema.mode", "guessed");
        Map<String, String> columnsWithoutDeclared = valid();
        columnsWithoutDeclared.put("schema.columns.orders", "qty BIGINT");
        Map<String, String> badType = valid();
        badType.put("schema.mode", "declared");
        badType.put("schema.columns.orders", "qty DECIMAL");
        Map<String, String> notAColumn = valid();
        notAColumn.put("schema.mode", "declared");
        notAColumn.put("schema.columns.orders", "qty");

        assertThatThrownBy(() -> create(badMode))
                .hasMessageContaining("'schema.mode' has invalid value 'guessed'")
                .hasMessageContaining("use evolving (default), declared or sampled");
        assertThatThrownBy(() -> create(columnsWithoutDeclared))
                .hasMessageContaining("set the mode to declared");
        assertThatThrownBy(() -> create(badType))
                .hasMessageContaining("Column 'qty' of 'schema.columns.orders' has type 'DECIMAL'")
                .hasMessageContaining("use STRING, BIGINT, DOUBLE, BOOLEAN or BYTES");
        assertThatThrownBy(() -> create(notAColumn))
                .hasMessageContaining("write 'name TYPE, name TYPE, ...'");
    }

    @Test
    void typesWidenWithoutDroppingAValue() {
        assertThat(ColumnTypes.widen(CellValue.Type.INTEGER, CellValue.Type.INTEGER))
                .isEqualTo(CellValue.Type.INTEGER);
        assertThat(ColumnTypes.widen(CellValue.Type.INTEGER, CellValue.Type.DOUBLE))
                .isEqualTo(CellValue.Type.DOUBLE);
        assertThat(ColumnTypes.widen(CellValue.Type.DOUBLE, CellValue.Type.INTEGER))
                .isEqualTo(CellValue.Type.DOUBLE);
        for (CellValue.Type a : CellValue.Type.values()) {
            assertThat(ColumnTypes.widen(a, CellValue.Type.STRING))
                    .isEqualTo(CellValue.Type.STRING);
        }
        assertThat(ColumnTypes.widen(CellValue.Type.BOOLEAN, CellValue.Type.INTEGER))
                .isEqualTo(CellValue.Type.STRING);
        assertThat(ColumnTypes.widen(CellValue.Type.BINARY, CellValue.Type.DOUBLE))
                .isEqualTo(CellValue.Type.STRING);
    }

    private TablestoreDataSource create(Map<String, String> options) {
        return (TablestoreDataSource)
                factory.createDataSource(
                        new FactoryHelper.DefaultContext(
                                Configuration.fromMap(options),
                                new Configuration(),
                                getClass().getClassLoader()));
    }

    private static Map<String, String> valid() {
        Map<String, String> options = new HashMap<>();
        options.put("endpoint", "http://127.0.0.1:1");
        options.put("instance.name", "inst");
        options.put("access.key.id", "id");
        options.put("access.key.secret", "secret");
        options.put("tables", "orders_.*");
        options.put("tunnel.name", "to-lake");
        return options;
    }
}
