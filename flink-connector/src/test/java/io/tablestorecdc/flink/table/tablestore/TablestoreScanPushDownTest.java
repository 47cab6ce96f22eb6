package io.tablestorecdc.flink.table.tablestore;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import io.tablestorecdc.checkpoint.settings.TableConnection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** Which pushed filters become which key bounds, and which stay with Flink only. */
class TablestoreScanPushDownTest {

    private static final DataType ROW =
            DataTypes.ROW(
                    DataTypes.FIELD("g", DataTypes.STRING()),
                    DataTypes.FIELD("n", DataTypes.BIGINT()),
                    DataTypes.FIELD("c", DataTypes.CHAR(3)),
                    DataTypes.FIELD("name", DataTypes.STRING()),
                    DataTypes.FIELD("v", DataTypes.BIGINT()));

    private static final List<PrimaryKeySchema> KEY =
            List.of(
                    new PrimaryKeySchema("g", PrimaryKeyType.STRING),
                    new PrimaryKeySchema("n", PrimaryKeyType.INTEGER),
                    new PrimaryKeySchema("c", PrimaryKeyType.STRING));

    private static TablestoreDynamicTableSource source() {
        TableConnection connection =
                TableConnection.parse(
                        Map.of(
                                "endpoint", "http://127.0.0.1:1",
                                "instance.name", "i",
                                "access.key.id", "id",
                                "access.key.secret", "do-not-print-me",
                                "table.name", "t"),
                        k -> k,
                        "test",
                        "docs");
        return new TablestoreDynamicTableSource(
                connection,
                (RowType) ROW.getLogicalType(),
                KEY,
                true,
                3,
                null,
                new TablestoreDynamicTableSource.ScanSettings(1024, Optional.empty()));
    }

    private static FieldReferenceExpression field(String name) {
        List<String> names = ((RowType) ROW.getLogicalType()).getFieldNames();
        int index = names.indexOf(name);
        return new FieldReferenceExpression(
                name, DataTypes.of(((RowType) ROW.getLogicalType()).getTypeAt(index)), 0, index);
    }

    private static CallExpression call(
            BuiltInFunctionDefinition function, ResolvedExpression... args) {
        return CallExpression.permanent(function, List.of(args), DataTypes.BOOLEAN());
    }

    private static ValueLiteralExpression lit(Object value) {
        return new ValueLiteralExpression(value);
    }

    @Test
    void equalityAndRangeOnTheLeadingKeyColumnsAreAcceptedAndStillApplied() {
        TablestoreDynamicTableSource source = source();
        ResolvedExpression g = call(BuiltInFunctionDefinitions.EQUALS, field("g"), lit("a"));
        ResolvedExpression between =
                call(
                        BuiltInFunctionDefinitions.AND,
                        call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, field("n"), lit(3L)),
                        call(BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, field("n"), lit(9L)));
        ResolvedExpression onValue =
                call(BuiltInFunctionDefinitions.GREATER_THAN, field("v"), lit(1L));

        SupportsFilterPushDown.Result result = source.applyFilters(List.of(onValue, g, between));

        assertThat(source.bounds().describe(KEY)).isEqualTo("g = 'a' AND n >= 3 AND n <= 9");
        assertThat(result.getAcceptedFilters()).containsExactly(g, between);
        assertThat(result.getRemainingFilters()).containsExactly(onValue, g, between);
        assertThat(source.asSummaryString())
                .isEqualTo(
                        "Tablestore(table=t, keys=g = 'a' AND n >= 3 AND n <= 9,"
                                + " columns=[g, n, c, name, v])")
                .doesNotContain("do-not-print-me");
    }

    @Test
    void aLiteralOnTheLeftIsFlippedAndAnIntLiteralBoundsABigintKey() {
        TablestoreDynamicTableSource source = source();
        ResolvedExpression lower = call(BuiltInFunctionDefinitions.LESS_THAN, lit("m"), field("g"));
        ResolvedExpression upper =
                call(BuiltInFunctionDefinitions.GREATER_THAN, lit("x"), field("g"));

        source.applyFilters(List.of(lower, upper));

        assertThat(source.bounds().describe(KEY)).isEqualTo("g > 'm' AND g < 'x'");
    }

    @Test
    void filtersThatCannotBoundTheKeyStayRemainingOnly() {
        TablestoreDynamicTableSource source = source();
        List<ResolvedExpression> filters =
                List.of(
                        // a range on the second key column without an equality on the first
                        call(BuiltInFunctionDefinitions.GREATER_THAN, field("n"), lit(3L)),
                        // OR, NOT EQUALS, column against column
                        call(
                                BuiltInFunctionDefinitions.OR,
                                call(BuiltInFunctionDefinitions.EQUALS, field("g"), lit("a")),
                                call(BuiltInFunctionDefinitions.EQUALS, field("g"), lit("b"))),
                        call(BuiltInFunctionDefinitions.NOT_EQUALS, field("g"), lit("a")),
                        call(BuiltInFunctionDefinitions.EQUALS, field("g"), field("name")),
                        // a string literal against the integer key column
                        call(BuiltInFunctionDefinitions.EQUALS, field("n"), lit("3")));

        SupportsFilterPushDown.Result result = source.applyFilters(filters);

        assertThat(source.bounds().isAll()).isTrue();
        assertThat(result.getAcceptedFilters()).isEmpty();
        assertThat(result.getRemainingFilters()).isEqualTo(filters);
        assertThat(source.asSummaryString()).contains("keys=all keys");
    }

    @Test
    void aCharKeyColumnIsNotBoundBecauseItsComparisonPads() {
        TablestoreDynamicTableSource source = source();
        ResolvedExpression g = call(BuiltInFunctionDefinitions.EQUALS, field("g"), lit("a"));
        ResolvedExpression n = call(BuiltInFunctionDefinitions.EQUALS, field("n"), lit(1L));
        ResolvedExpression c = call(BuiltInFunctionDefinitions.EQUALS, field("c"), lit("ab"));

        SupportsFilterPushDown.Result result = source.applyFilters(List.of(g, n, c));

        assertThat(source.bounds().describe(KEY)).isEqualTo("g = 'a' AND n = 1");
        assertThat(result.getAcceptedFilters()).containsExactly(g, n);
    }

    @Test
    void projectionAsksForTheProjectedAttributesAndTheFirstKeyColumn() {
        TablestoreDynamicTableSource source = source();
        source.applyProjection(
                new int[][] {{4}, {1}},
                DataTypes.ROW(
                        DataTypes.FIELD("v", DataTypes.BIGINT()),
                        DataTypes.FIELD("n", DataTypes.BIGINT())));

        assertThat(source.columnsToGet()).containsExactlyInAnyOrder("v", "g");
        assertThat(source.asSummaryString()).endsWith("columns=[v, n])");
        assertThat(source.copy()).isEqualTo(source);
    }
}
