package org.zludaj.driver;

import org.zludaj.api.CuDarkApi;
import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Device;
import org.zludaj.nativ.HostRuntime;

/**
 * The slots of NVIDIA's undocumented export tables (cuGetExportTable) that carry driver semantics. The tables
 * themselves live in the shim (dark.c); each slot with meaning forwards here.
 */
final class DarkApi implements CuDarkApi {
    private final Driver d;

    DarkApi(Driver d) {
        this.d = d;
    }

    /** 6bd5fb6c[2]: the device's primary context, not retained. */
    @Override
    public int zludaDarkPrimaryContext(long pctx, int dev) {
        return Api.call("cudart primary context", () -> Mem.putLong(pctx, d.primary[d.checkDevice(dev)].handle, "pctx"));
    }

    private Context clsContext(long ctx) throws CudaException {
        if (ctx != 0) return d.handles.get(ctx, Context.class);
        Context c = d.current();
        if (c == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_CONTEXT, "no current context");
        return c;
    }

    /** c693336e[0]: context-local storage put. */
    @Override
    public int zludaDarkClsPut(long ctx, long key, long value, long dtor) {
        return Api.call("context-local storage put", () -> {
            // NVIDIA's driver (H200, 580.159.04) refuses a key the context holds already and keeps its value
            if (clsContext(ctx).localStorage.putIfAbsent(key, new long[] {value, dtor}) != null)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "context-local storage: the key is there already");
            d.contextsChanged();  // after the change: the shim's kept values (shim/dark.c) are asked again
        });
    }

    /** c693336e[1]: context-local storage delete. */
    @Override
    public int zludaDarkClsDelete(long ctx, long key) {
        return Api.call("context-local storage delete", () -> {
            clsContext(ctx).localStorage.remove(key);
            d.contextsChanged();
        });
    }

    /** c693336e[2]: context-local storage get: INVALID_CONTEXT without a context, INVALID_HANDLE for a missing key. */
    @Override
    public int zludaDarkClsGet(long value, long ctx, long key) {
        return Api.call("context-local storage get", () -> {
            long[] v = clsContext(ctx).localStorage.get(key);
            if (v == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "no context-local value for this key");
            Mem.putLong(value, v[0], "value");
        });
    }

    /** 263e8860[2]: context check, answers 0. */
    @Override
    public int zludaDarkContextCheck(long ctx, long result1, long result2) {
        return Api.call("context check", () -> {
            if (result1 != 0) HostRuntime.putInt(result1, 0);
        });
    }

    /** d4082055[1] for versions ending in 2..9: HMAC-MD2 over our own table addresses and the devices. */
    @Override
    public int zludaDarkIntegrityCheck(int version, long unixSeconds, long out, long cudartTable, long integrityTable,
                                       long integritySlot, int pid, int threadId) {
        return Api.call("integrity check", () -> {
            var devices = d.devices();
            Integrity.DeviceInfo[] infos = new Integrity.DeviceInfo[devices.size()];
            for (int i = 0; i < infos.length; i++) {
                Device dv = devices.get(i);
                infos[i] = new Integrity.DeviceInfo(dv.uuid(), dv.attribute(50), dv.attribute(33), dv.attribute(34));
            }
            byte[] msg = Integrity.message(Driver.VERSION, version, pid, threadId, cudartTable, integrityTable, integritySlot,
                    unixSeconds, infos);
            byte[] mac = Integrity.hmacMd2(Integrity.KEY, msg);
            Mem.nonNull(out, "out");
            HostRuntime.write(out, mac, 0, 16);
        });
    }

    /** 6bd5fb6c[1], [6], [8]: a module from a fatbin (cudart's private module loading). */
    @Override
    public int zludaDarkModuleFromFatbin(long module, long fatbinWrapper) {
        return Api.call("module from fatbin", () -> {
            Mem.nonNull(module, "module");
            d.requireInit();
            HostRuntime.putLong(module, d.handles.add(CodeLoader.load(d, fatbinWrapper, true)));
        });
    }
}
