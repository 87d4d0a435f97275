"""Blender half of `render_photos.py`: builds and path-traces the physical scenes.

Run by `render_photos.py` as `blender -b --factory-startup -P photo_blender.py -- JOB.json`;
it needs nothing but Blender's own Python (no numpy). JOB.json lists frames; for each
frame this script builds, in metres with z up:

* a table top, drawn procedurally: felt (rough, with sheen and a fibre bump) or
  varnished planks of wood (a clear coat that mirrors the lamp);
* cards: a grid mesh per card through the four corners the driver laid out, bent by
  a few millimetres (bowed up in the middle or curled up at the edges, as used cards
  lie), 0.3 mm thick in the sense that they float that far above the cloth, with the
  face artwork (its rounded corners transparent) under a glossy coating;
* a lamp (a sphere light of a few centimetres, warm to cool white), sometimes placed
  where the coating mirrors it into the camera; a room's ambient light; sometimes a
  window (a large soft area light); sometimes an unseen object between lamp and
  table that casts a shadow across the cards;
* the camera the driver chose (pose, field of view, a webcam's small sensor and its
  depth of field),

renders it with Cycles to a linear 16-bit PNG (light divided by `LINEAR_SCALE`), and writes the image positions of
every card's four corners (`FRAME.corners.json`), projected through the camera from
the bent mesh's own corner vertices.
"""
import json
import math
import sys

import bpy
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Matrix, Vector

GRID_U, GRID_V = 14, 20  # card mesh resolution: enough for a smooth bend
LINEAR_SCALE = 8.0  # written pixel = linear light / LINEAR_SCALE (render_photos.py reads it back)


def clear_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def node_material(name):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    return mat, nt, bsdf


def image_node(nt, path, non_color=False, extension="CLIP"):
    img = bpy.data.images.load(path)
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = img
    tex.extension = extension
    tex.interpolation = "Cubic"
    return tex


def table(frame):
    """The table top, drawn procedurally here (not by the training renderer's cloth
    generator, so the check shares no texture with the training data): varnished
    wood (grain bands bent by noise, planks, a clear coat) or felt (a dyed colour
    that varies a little, fibres that catch light at a slant)."""
    t = frame["table"]
    (x0, y0), (x1, y1) = t["lo"], t["hi"]
    verts = [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    mesh = bpy.data.meshes.new("table")
    mesh.from_pydata(verts, [], [(0, 1, 2, 3)])
    obj = bpy.data.objects.new("table", mesh)
    bpy.context.scene.collection.objects.link(obj)
    mat, nt, bsdf = node_material("cloth")
    coords = nt.nodes.new("ShaderNodeTexCoord")
    mapping = nt.nodes.new("ShaderNodeMapping")  # object space, metres, turned on the table
    mapping.inputs["Rotation"].default_value = (0.0, 0.0, t["turn_rad"])
    nt.links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    vec = mapping.outputs["Vector"]
    ramp = nt.nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (*t["colour_dark"], 1.0)
    ramp.color_ramp.elements[1].color = (*t["colour_light"], 1.0)
    fine = nt.nodes.new("ShaderNodeTexNoise")
    nt.links.new(vec, fine.inputs["Vector"])
    fine.inputs["Scale"].default_value = t["bump_scale"]
    fine.inputs["Detail"].default_value = 6.0
    if t["kind"] == "wood":
        wave = nt.nodes.new("ShaderNodeTexWave")
        wave.wave_type = "BANDS"
        wave.bands_direction = "Y"  # grain along the planks, which run along x
        nt.links.new(vec, wave.inputs["Vector"])
        wave.inputs["Scale"].default_value = t["grain_scale"]
        wave.inputs["Distortion"].default_value = t["grain_distortion"]
        wave.inputs["Detail"].default_value = 3.0
        wave.inputs["Detail Scale"].default_value = 2.0
        # Planks: a brick texture whose mortar darkens the seams between boards.
        planks = nt.nodes.new("ShaderNodeTexBrick")
        nt.links.new(vec, planks.inputs["Vector"])
        planks.inputs["Scale"].default_value = 1.0
        planks.inputs["Brick Width"].default_value = t["plank_length_m"]
        planks.inputs["Row Height"].default_value = t["plank_width_m"]
        planks.inputs["Mortar Size"].default_value = 0.0015
        planks.inputs["Color1"].default_value = (1, 1, 1, 1)
        planks.inputs["Color2"].default_value = (0.85, 0.85, 0.85, 1)
        planks.inputs["Mortar"].default_value = (0.25, 0.25, 0.25, 1)
        nt.links.new(wave.outputs["Fac"], ramp.inputs["Fac"])
        mix = nt.nodes.new("ShaderNodeMixRGB")
        mix.blend_type = "MULTIPLY"
        mix.inputs["Fac"].default_value = 1.0
        nt.links.new(ramp.outputs["Color"], mix.inputs["Color1"])
        nt.links.new(planks.outputs["Color"], mix.inputs["Color2"])
        colour = mix.outputs["Color"]
    else:
        blotch = nt.nodes.new("ShaderNodeTexNoise")
        nt.links.new(vec, blotch.inputs["Vector"])
        blotch.inputs["Scale"].default_value = t["grain_scale"]
        blotch.inputs["Detail"].default_value = 2.0
        mix = nt.nodes.new("ShaderNodeMixRGB")
        mix.blend_type = "MIX"
        mix.inputs["Fac"].default_value = 0.35
        nt.links.new(blotch.outputs["Fac"], mix.inputs["Color1"])
        nt.links.new(fine.outputs["Fac"], mix.inputs["Color2"])
        nt.links.new(mix.outputs["Color"], ramp.inputs["Fac"])
        colour = ramp.outputs["Color"]
    nt.links.new(colour, bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = t["roughness"]
    bsdf.inputs["Specular"].default_value = t["specular"]
    bsdf.inputs["Clearcoat"].default_value = t["clearcoat"]
    bsdf.inputs["Clearcoat Roughness"].default_value = t["clearcoat_roughness"]
    bsdf.inputs["Sheen"].default_value = t["sheen"]
    bump = nt.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = t["bump_strength"]
    bump.inputs["Distance"].default_value = 0.0005
    nt.links.new(fine.outputs["Fac"], bump.inputs["Height"])
    nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    obj.data.materials.append(mat)


def card(i, c):
    """A bent card through corners TL, TR, BR, BL (world metres, on the table)."""
    tl, tr, br, bl = [Vector((p[0], p[1], 0.0)) for p in c["corners"]]
    verts, uvs = [], []
    for j in range(GRID_V + 1):
        t = j / GRID_V  # 0 at the face's top edge, 1 at its bottom
        for i_u in range(GRID_U + 1):
            s = i_u / GRID_U
            p = (tl * (1 - s) + tr * s) * (1 - t) + (bl * (1 - s) + br * s) * t
            along = s if c["bend_axis"] == "width" else t
            x = 2 * along - 1
            lift = c["bend_m"] * ((1 - x * x) if c["bend_shape"] == "bow" else x * x)
            p.z = c["lift_m"] + lift
            verts.append(p)
            uvs.append((s, 1 - t))
    faces = []
    for j in range(GRID_V):
        for i_u in range(GRID_U):
            a = j * (GRID_U + 1) + i_u
            faces.append((a, a + GRID_U + 1, a + GRID_U + 2, a + 1))
    mesh = bpy.data.meshes.new(f"card{i}")
    mesh.from_pydata([tuple(v) for v in verts], [], faces)
    uv = mesh.uv_layers.new()
    for poly in mesh.polygons:
        for li in poly.loop_indices:
            uv.data[li].uv = uvs[mesh.loops[li].vertex_index]
    for poly in mesh.polygons:
        poly.use_smooth = True
    mesh.update()
    if mesh.polygons[0].normal.z < 0:  # the face must look up, at the camera
        mesh.flip_normals()
    obj = bpy.data.objects.new(f"card{i}", mesh)
    bpy.context.scene.collection.objects.link(obj)
    mat, nt, bsdf = node_material(f"face{i}")
    tex = image_node(nt, c["face"])
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    nt.links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
    bsdf.inputs["Roughness"].default_value = c["roughness"]
    bsdf.inputs["Specular"].default_value = 0.5
    bsdf.inputs["Clearcoat"].default_value = c["clearcoat"]
    bsdf.inputs["Clearcoat Roughness"].default_value = c["clearcoat_roughness"]
    obj.data.materials.append(mat)
    corner_ids = [0, GRID_U, (GRID_U + 1) * (GRID_V + 1) - 1, GRID_V * (GRID_U + 1)]
    return obj, [verts[k] for k in corner_ids]


def kelvin_rgb(k):
    """Approximate linear RGB of a black body at `k` kelvin, white at about 6500 K
    (Tanner Helland's fit, made linear)."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * ((t - 60) ** -0.1332047592)
    g = (99.4708025861 * math.log(t) - 161.1195681661) if t <= 66 else 288.1221695283 * ((t - 60) ** -0.0755148492)
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    srgb = [min(255.0, max(0.0, v)) / 255.0 for v in (r, g, b)]
    return tuple(((v + 0.055) / 1.055) ** 2.4 if v > 0.04045 else v / 12.92 for v in srgb)


def lights(frame):
    scene = bpy.context.scene
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    amb = frame["ambient"]
    bg.inputs["Color"].default_value = (*kelvin_rgb(amb["kelvin"]), 1.0)
    bg.inputs["Strength"].default_value = amb["strength"]
    scene.world = world
    for k, lamp in enumerate(frame["lamps"]):
        if lamp["kind"] == "point":
            data = bpy.data.lights.new(f"lamp{k}", "POINT")
            data.shadow_soft_size = lamp["radius_m"]
        else:
            data = bpy.data.lights.new(f"lamp{k}", "AREA")
            data.shape = "RECTANGLE"
            data.size, data.size_y = lamp["size_m"]
        data.energy = lamp["watts"]
        data.color = kelvin_rgb(lamp["kelvin"])
        obj = bpy.data.objects.new(f"lamp{k}", data)
        obj.location = lamp["position"]
        if lamp["kind"] == "area":  # face the table
            direction = Vector(lamp["target"]) - Vector(lamp["position"])
            obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
        scene.collection.objects.link(obj)
    for k, occ in enumerate(frame["occluders"]):
        bpy.ops.mesh.primitive_cube_add(size=1.0, location=occ["position"])
        obj = bpy.context.active_object
        obj.scale = occ["size_m"]
        obj.rotation_euler = (0.0, 0.0, occ["turn_rad"])
        obj.visible_camera = False  # above or beside the frame: only its shadow is seen
        obj.visible_glossy = False


def camera(frame):
    cam = frame["camera"]
    data = bpy.data.cameras.new("webcam")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = cam["sensor_mm"]
    data.lens = cam["focal_mm"]
    data.dof.use_dof = True
    data.dof.focus_distance = cam["focus_m"]
    data.dof.aperture_fstop = cam["fstop"]
    obj = bpy.data.objects.new("webcam", data)
    right, up, back = (Vector(v) for v in cam["axes"])  # camera x, y and -forward in world
    rot = Matrix((right, up, back)).transposed()
    obj.matrix_world = Matrix.Translation(Vector(cam["position"])) @ rot.to_4x4()
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.scene.camera = obj
    return obj


def render(frame, threads):
    clear_scene()
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = frame["samples"]
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.adaptive_threshold = 0.02
    scene.cycles.use_denoising = False  # what is left of the path noise acts as sensor noise
    scene.cycles.max_bounces = 6
    scene.cycles.sample_clamp_indirect = 4.0
    scene.cycles.blur_glossy = 1.0
    scene.cycles.seed = frame["seed"]
    scene.render.threads_mode = "FIXED" if threads else "AUTO"
    if threads:
        scene.render.threads = threads
    scene.render.resolution_x, scene.render.resolution_y = frame["size"]
    scene.render.resolution_percentage = 100
    scene.render.film_transparent = False
    # Scene-linear light, scaled down by LINEAR_SCALE so that highlights up to that
    # many times the white of the face artwork survive, in 16-bit PNG: the driver
    # plays the webcam's exposure, tone curve and clipping afterwards.
    scene.view_settings.view_transform = "Raw"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = -math.log2(LINEAR_SCALE)
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.color_depth = "16"
    table(frame)
    corners = []
    for i, c in enumerate(frame["cards"]):
        _, cs = card(i, c)
        corners.append(cs)
    lights(frame)
    cam = camera(frame)
    bpy.context.view_layer.update()
    w, h = frame["size"]
    out = []
    for cs in corners:
        pts = []
        for p in cs:
            v = world_to_camera_view(scene, cam, p)
            # Blender's view coordinates run from the frame's bottom-left edge; the
            # labels use pixel centres at whole numbers, y down.
            pts.append([v.x * w - 0.5, (1.0 - v.y) * h - 0.5])
        out.append(pts)
    scene.render.filepath = frame["linear_png"]
    bpy.ops.render.render(write_still=True)
    with open(frame["corners_out"], "w") as f:
        json.dump(out, f)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    with open(argv[0]) as f:
        job = json.load(f)
    for k, frame in enumerate(job["frames"]):
        render(frame, job.get("threads", 0))
        print(f"photo_blender: frame {k + 1}/{len(job['frames'])} done", flush=True)


if __name__ == "__main__":
    main()
