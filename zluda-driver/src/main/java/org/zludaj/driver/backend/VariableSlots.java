package org.zludaj.driver.backend;

import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.ptx.llvm.Lowering;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Variable;

/**
 * GPU backends' half of compile on demand: a kernel unit reaches each module variable through a slot
 * ({@link Lowering#SLOT_PREFIX} + name) that, once the unit is loaded, gets the address of the variable in the
 * module's variables unit.
 */
public final class VariableSlots {
    private VariableSlots() {}

    /** The unit's slot of {@code name}: its device address, or 0 when the code object has none (unused). */
    public interface SlotLookup {
        long slot(String symbol) throws CudaException;
    }

    /** Writes a 64-bit value to device memory. */
    public interface Writer {
        void writeLong(long address, long value) throws CudaException;
    }

    /** Fills every slot of {@code unit} with its variable's address in {@code module}. */
    public static void fill(PtxModule unit, Backend.Program module, SlotLookup slots, Writer writer) throws CudaException {
        for (Variable v : unit.globals()) {
            boolean data = v.space() == StateSpace.GLOBAL || v.space() == StateSpace.CONST;
            if (!data || !v.attributes().contains(".extern")) continue;
            long slot = slots.slot(Lowering.SLOT_PREFIX + v.name());
            if (slot == 0) continue;
            Backend.Program.Global g = module.global(v.name());
            if (g == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "module variable " + v.name() + " of " + unit.name());
            writer.writeLong(slot, g.address());
        }
    }
}
