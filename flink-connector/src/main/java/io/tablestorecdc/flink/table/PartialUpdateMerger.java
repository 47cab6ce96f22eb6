package io.tablestorecdc.flink.table;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Upsert mode: turns a partial UPDATE (Tablestore sends only the columns it touched) into the full
 * row, from the last image of the row kept in keyed state, so an upsert sink never overwrites
 * untouched columns with NULL. A PUT replaces the row (its untouched columns are really gone); a
 * DELETE clears the state. An UPDATE of a row this job never saw (written before the stream's
 * start) has NULL for the columns it did not touch: nothing else is known about them. The
 * schema-free {@code _values} map merges the same way, column by column: the change's values over
 * the last image's, a column the change deletes (NULL in the change's map) removed.
 */
@Internal
final class PartialUpdateMerger extends KeyedProcessFunction<String, RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final LogicalType[] fieldTypes;
    private final int physicalArity;
    private final int valuesField;
    private final TypeInformation<RowData> imageType;
    private transient RowData.FieldGetter[] getters;
    private transient ValueState<RowData> image;

    /**
     * @param fieldTypes types of the output fields (physical, then metadata)
     * @param physicalArity how many leading fields are physical columns
     * @param valuesField the index of the {@code _values} map, or -1
     * @param imageType the type of the output rows, for the keyed state
     */
    PartialUpdateMerger(
            LogicalType[] fieldTypes,
            int physicalArity,
            int valuesField,
            TypeInformation<RowData> imageType) {
        this.fieldTypes = fieldTypes.clone();
        this.physicalArity = physicalArity;
        this.valuesField = valuesField;
        this.imageType = imageType;
    }

    @Override
    public void open(OpenContext openContext) {
        getters = new RowData.FieldGetter[fieldTypes.length];
        for (int i = 0; i < fieldTypes.length; i++) {
            getters[i] = RowData.createFieldGetter(fieldTypes[i], i);
        }
        image = getRuntimeContext().getState(new ValueStateDescriptor<>("row-image", imageType));
    }

    @Override
    public void processElement(RowData change, Context ctx, Collector<RowData> out)
            throws Exception {
        byte[] touched = change.getBinary(fieldTypes.length);
        RowData previous = image.value();
        boolean merge = change.getRowKind() != RowKind.INSERT && previous != null;
        GenericRowData row = new GenericRowData(change.getRowKind(), fieldTypes.length);
        for (int i = 0; i < fieldTypes.length; i++) {
            if (i == valuesField) {
                row.setField(i, mergedValues(change.getMap(i), merge ? previous.getMap(i) : null));
                continue;
            }
            boolean fromChange =
                    i >= physicalArity || !merge || ChangeRowDeserializer.isTouched(touched, i);
            row.setField(i, getters[i].getFieldOrNull(fromChange ? change : previous));
        }
        if (change.getRowKind() == RowKind.DELETE) {
            image.clear();
        } else {
            GenericRowData kept = copyOf(row);
            kept.setRowKind(RowKind.INSERT);
            image.update(kept);
        }
        out.collect(row);
    }

    /** The change's values over the previous image's ({@code null}: none), deleted ones removed. */
    private static MapData mergedValues(MapData change, MapData previous) {
        Map<StringData, StringData> merged = new LinkedHashMap<>();
        if (previous != null) {
            ArrayData keys = previous.keyArray();
            ArrayData values = previous.valueArray();
            for (int i = 0; i < previous.size(); i++) {
                merged.put(keys.getString(i), values.getString(i));
            }
        }
        ArrayData keys = change.keyArray();
        ArrayData values = change.valueArray();
        for (int i = 0; i < change.size(); i++) {
            if (values.isNullAt(i)) {
                merged.remove(keys.getString(i));
            } else {
                merged.put(keys.getString(i), values.getString(i));
            }
        }
        return new GenericMapData(merged);
    }

    private GenericRowData copyOf(GenericRowData row) {
        GenericRowData copy = new GenericRowData(row.getRowKind(), row.getArity());
        for (int i = 0; i < row.getArity(); i++) {
            copy.setField(i, row.getField(i));
        }
        return copy;
    }
}
