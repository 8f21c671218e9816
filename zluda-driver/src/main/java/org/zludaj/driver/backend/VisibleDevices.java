package org.zludaj.driver.backend;

import java.util.ArrayList;
import java.util.List;

/**
 * CUDA_VISIBLE_DEVICES as NVIDIA's driver reads it: a comma-separated list of device indices, in the order the
 * application will see them; the first entry that is not a valid index (out of range, repeated, not a number, a
 * UUID we do not have) ends the list; an empty value hides every device. Unset: all devices in order. The hip backend
 * does not use it (HIP itself applies HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES), nor the cuda backend (NVIDIA's
 * driver does).
 */
public final class VisibleDevices {
    private VisibleDevices() {}

    /** The indices, among {@code count} devices, that {@code value} makes visible, in their new order. */
    public static List<Integer> of(String value, int count) {
        List<Integer> out = new ArrayList<>();
        if (value == null) {
            for (int i = 0; i < count; i++) out.add(i);
            return out;
        }
        for (String part : value.split(",", -1)) {
            int index;
            try {
                index = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                break;
            }
            if (index < 0 || index >= count || out.contains(index)) break;
            out.add(index);
        }
        return out;
    }
}
